//! The built-in GPU catalog.
//!
//! Capacities are the totals nvidia-smi reports in MiB (rocm-smi bytes ÷ 2^20
//! for AMD), compute capabilities come from NVIDIA's CUDA GPU table, and the
//! bf16 / fp8 flags follow `torch.cuda.is_bf16_supported()` (CC ≥ 8.0, always
//! on ROCm) and Transformer Engine's `check_fp8_support` (CC ≥ 8.9).
//! Every figure and its source: `../shared/peers/gpus.json` and FACTS.md §7;
//! `tests/gpus.rs` checks this table against that file.

use crate::schema::GpuTarget;

struct Entry {
    id: &'static str,
    name: &'static str,
    memory_mib: u64,
    compute_capability: Option<&'static str>,
    bf16: bool,
    fp8: bool,
    source: &'static str,
}

const MODAL: &str = "modal-labs/modal-client PR #2797 (nvidia-smi totals)";
const CC_PAGE: &str = "NVIDIA CUDA GPU Compute Capability page (developer.nvidia.com/cuda-gpus)";

const CATALOG: [Entry; 19] = [
    Entry { id: "t4", name: "Tesla T4", memory_mib: 15360, compute_capability: Some("7.5"), bf16: false, fp8: false, source: MODAL },
    Entry { id: "v100-16gb", name: "Tesla V100 16GB (SXM2/PCIe)", memory_mib: 16384, compute_capability: Some("7.0"), bf16: false, fp8: false, source: "public nvidia-smi outputs of Tesla V100-SXM2-16GB (16160 MiB on older drivers)" },
    Entry { id: "v100-32gb", name: "Tesla V100 32GB (SXM2)", memory_mib: 32768, compute_capability: Some("7.0"), bf16: false, fp8: false, source: "public nvidia-smi outputs of Tesla V100-SXM2-32GB (32480 MiB on older drivers, GrabGPU#5)" },
    Entry { id: "a10", name: "NVIDIA A10", memory_mib: 23028, compute_capability: Some("8.6"), bf16: true, fp8: false, source: MODAL },
    Entry { id: "a10g", name: "NVIDIA A10G", memory_mib: 23028, compute_capability: Some("8.6"), bf16: true, fp8: false, source: "public nvidia-smi outputs of NVIDIA A10G; CC 8.6 inferred (A10 variant, k8s-device-plugin#344)" },
    Entry { id: "l4", name: "NVIDIA L4", memory_mib: 23034, compute_capability: Some("8.9"), bf16: true, fp8: true, source: MODAL },
    Entry { id: "l40s", name: "NVIDIA L40S", memory_mib: 46068, compute_capability: Some("8.9"), bf16: true, fp8: true, source: MODAL },
    Entry { id: "rtx-3090", name: "NVIDIA GeForce RTX 3090", memory_mib: 24576, compute_capability: Some("8.6"), bf16: true, fp8: false, source: "club-3090 issue #32 (nvidia-smi 24576MiB)" },
    Entry { id: "rtx-4090", name: "NVIDIA GeForce RTX 4090", memory_mib: 24564, compute_capability: Some("8.9"), bf16: true, fp8: true, source: "RLinf issue #255 (nvidia-smi 24564MiB)" },
    Entry { id: "rtx-a6000", name: "NVIDIA RTX A6000", memory_mib: 49140, compute_capability: Some("8.6"), bf16: true, fp8: false, source: "public nvidia-smi outputs of NVIDIA RTX A6000" },
    Entry { id: "quadro-rtx-6000", name: "Quadro RTX 6000", memory_mib: 24576, compute_capability: Some("7.5"), bf16: false, fp8: false, source: "public nvidia-smi outputs (24576 MiB with ECC off, 23040 MiB with ECC on)" },
    Entry { id: "a100-40gb", name: "NVIDIA A100-SXM4-40GB", memory_mib: 40960, compute_capability: Some("8.0"), bf16: true, fp8: false, source: MODAL },
    Entry { id: "a100-80gb", name: "NVIDIA A100-SXM4-80GB", memory_mib: 81920, compute_capability: Some("8.0"), bf16: true, fp8: false, source: MODAL },
    Entry { id: "h100-sxm", name: "NVIDIA H100 80GB HBM3", memory_mib: 81559, compute_capability: Some("9.0"), bf16: true, fp8: true, source: "vllm issue #27508 (nvidia-smi 81559MiB)" },
    Entry { id: "h100-pcie", name: "NVIDIA H100 PCIe", memory_mib: 81559, compute_capability: Some("9.0"), bf16: true, fp8: true, source: "public nvidia-smi outputs of NVIDIA H100 PCIe" },
    Entry { id: "h200", name: "NVIDIA H200", memory_mib: 143771, compute_capability: Some("9.0"), bf16: true, fp8: true, source: "public nvidia-smi outputs of NVIDIA H200" },
    Entry { id: "b200", name: "NVIDIA B200", memory_mib: 183359, compute_capability: Some("10.0"), bf16: true, fp8: true, source: "TensorRT-LLM issue #10278 (nvidia-smi 183359MiB)" },
    Entry { id: "mi250x", name: "AMD Instinct MI250X", memory_mib: 65520, compute_capability: None, bf16: true, fp8: false, source: "rocm-smi 68702699520 B per GCD; fp8 absent (gfx942-only gating, ROCm/flash-attention#146)" },
    Entry { id: "mi300x", name: "AMD Instinct MI300X", memory_mib: 196592, compute_capability: None, bf16: true, fp8: true, source: "rocm-smi 206141652992 B; FNUZ fp8 (ROCm precision-support docs)" },
];

/// Every built-in target, in catalog order.
pub fn builtin() -> Vec<GpuTarget> {
    CATALOG
        .iter()
        .map(|e| GpuTarget {
            id: e.id.to_owned(),
            name: e.name.to_owned(),
            memory_mib: e.memory_mib,
            compute_capability: e.compute_capability.map(str::to_owned),
            bf16: e.bf16,
            fp8: e.fp8,
            sources: vec![e.source.to_owned(), CC_PAGE.to_owned()],
        })
        .collect()
}

/// Built-in targets plus the manifest's custom ones (a custom id replaces a built-in one).
pub fn catalog(custom: &[GpuTarget]) -> Vec<GpuTarget> {
    let mut all = builtin();
    for target in custom {
        match all.iter_mut().find(|t| t.id == target.id) {
            Some(existing) => *existing = target.clone(),
            None => all.push(target.clone()),
        }
    }
    all
}

impl GpuTarget {
    pub fn memory_bytes(&self) -> u64 {
        self.memory_mib * 1024 * 1024
    }
}
