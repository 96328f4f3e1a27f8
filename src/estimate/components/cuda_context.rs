//! The CUDA context and kernels, present in every process that touches the GPU.

use super::{MemoryComponent, Run, Term};
use crate::estimate::{MIB, NotEstimable};

pub(crate) struct CudaContext;

/// CUDA context and kernels when nothing says otherwise: furiousteabag/vram-calculator's
/// constant `cudaKernels = 1000 MiB`; HF measured 1343 MB on a V100 and vram.asmirnov
/// reports 300 MiB–2 GiB (FACTS.md §4). Override with `memory.cuda_context_mib`.
pub const DEFAULT_CUDA_CONTEXT_MIB: f64 = 1000.0;

impl MemoryComponent for CudaContext {
    fn id(&self) -> &'static str {
        "cuda-context"
    }

    fn source(&self) -> &'static str {
        "furiousteabag/vram-calculator app/_lib/index.ts cudaKernels; HF model_memory_anatomy.md (FACTS.md §4)"
    }

    fn terms(&self, run: &Run, _notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        let context_mib = run.memory.cuda_context_mib.unwrap_or(DEFAULT_CUDA_CONTEXT_MIB);
        Ok(vec![Term::fixed("CUDA context", context_mib * MIB, format!("{context_mib} MiB (memory.cuda_context_mib)"))])
    }
}
