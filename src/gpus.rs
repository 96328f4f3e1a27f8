//! The built-in GPU catalog.
//!
//! Capacities are the totals nvidia-smi reports in MiB (rocm-smi bytes ÷ 2^20
//! for AMD), compute capabilities come from NVIDIA's CUDA GPU table, and the
//! bf16 / fp8 flags follow `torch.cuda.is_bf16_supported()` (CC ≥ 8.0, always
//! on ROCm) and Transformer Engine's `check_fp8_support` (CC ≥ 8.9).
//! Every figure and its source: `../shared/peers/gpus.json` and FACTS.md §7;
//! `tests/gpus.rs` checks this table against that file. Entries that file does
//! not have yet (TITAN RTX, RTX 2080 Ti, RTX 5090, H20, P100, RTX 3060, RTX A4000,
//! RTX A5000, RTX 6000 Ada, A800 80GB, A40, L20, H800, H100 NVL, RTX 4080, RTX 4060 Ti 16 GB)
//! name their public nvidia-smi output in
//! `source`, and the test checks their bf16 / fp8 flags against their compute
//! capability instead.

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

const CATALOG: [Entry; 35] = [
    Entry { id: "t4", name: "Tesla T4", memory_mib: 15360, compute_capability: Some("7.5"), bf16: false, fp8: false, source: MODAL },
    Entry {
        id: "p100-16gb",
        name: "Tesla P100 16GB (PCIe/SXM2)",
        memory_mib: 16384,
        compute_capability: Some("6.0"),
        bf16: false,
        fp8: false,
        source: "wookayin/gpustat issue #130 (nvidia-smi 16384MiB, Tesla P100-PCIE-16GB, driver 515.65.01; 16280 MiB on older drivers; the 12 GB P100 PCIe is not in the catalog)",
    },
    Entry {
        id: "v100-16gb",
        name: "Tesla V100 16GB (SXM2/PCIe)",
        memory_mib: 16384,
        compute_capability: Some("7.0"),
        bf16: false,
        fp8: false,
        source: "public nvidia-smi outputs of Tesla V100-SXM2-16GB (16160 MiB on older drivers)",
    },
    Entry {
        id: "v100-32gb",
        name: "Tesla V100 32GB (SXM2)",
        memory_mib: 32768,
        compute_capability: Some("7.0"),
        bf16: false,
        fp8: false,
        source: "public nvidia-smi outputs of Tesla V100-SXM2-32GB (32480 MiB on older drivers, GrabGPU#5)",
    },
    Entry { id: "a10", name: "NVIDIA A10", memory_mib: 23028, compute_capability: Some("8.6"), bf16: true, fp8: false, source: MODAL },
    Entry {
        id: "a10g",
        name: "NVIDIA A10G",
        memory_mib: 23028,
        compute_capability: Some("8.6"),
        bf16: true,
        fp8: false,
        source: "public nvidia-smi outputs of NVIDIA A10G; CC 8.6 inferred (A10 variant, k8s-device-plugin#344)",
    },
    Entry { id: "l4", name: "NVIDIA L4", memory_mib: 23034, compute_capability: Some("8.9"), bf16: true, fp8: true, source: MODAL },
    Entry { id: "l40s", name: "NVIDIA L40S", memory_mib: 46068, compute_capability: Some("8.9"), bf16: true, fp8: true, source: MODAL },
    Entry {
        id: "l20",
        name: "NVIDIA L20",
        memory_mib: 46068,
        compute_capability: Some("8.9"),
        bf16: true,
        fp8: true,
        source: "public nvidia-smi outputs of NVIDIA L20 (46068 MiB, driver 550.163.01, code index file id 56123585934; `NVIDIA L20, 46068, ..., 0x26B610DE, 8.9` in a --query-gpu listing with compute capability, code index file id 58459699720); 1Panel-dev/1Panel issue #10990 (4 x L20 nvidia-smi)",
    },
    Entry {
        id: "a40",
        name: "NVIDIA A40",
        memory_mib: 46068,
        compute_capability: Some("8.6"),
        bf16: true,
        fp8: false,
        source: "public nvidia-smi --query-gpu outputs of NVIDIA A40 (`NVIDIA A40, 46068 MiB` read off a live pod, code index file id 67500832079; `NVIDIA A40, 46068, 550.90.07`, code index file id 60334653726); filecoin-project/rust-gpu-tools PR #67 (A40 device name)",
    },
    Entry {
        id: "rtx-2080-ti",
        name: "NVIDIA GeForce RTX 2080 Ti",
        memory_mib: 11264,
        compute_capability: Some("7.5"),
        bf16: false,
        fp8: false,
        source: "public nvidia-smi outputs of NVIDIA GeForce RTX 2080 Ti on current drivers (11264 MiB); 10989 MiB on driver 418.87, karfly/learnable-triangulation-pytorch issue #80",
    },
    Entry {
        id: "titan-rtx",
        name: "NVIDIA TITAN RTX",
        memory_mib: 24576,
        compute_capability: Some("7.5"),
        bf16: false,
        fp8: false,
        source: "public nvidia-smi outputs of NVIDIA TITAN RTX on current drivers (24576 MiB); 24219 MiB on older drivers, lambdal/lambda-tensorflow-benchmark PR #11",
    },
    Entry {
        id: "rtx-3060",
        name: "NVIDIA GeForce RTX 3060",
        memory_mib: 12288,
        compute_capability: Some("8.6"),
        bf16: true,
        fp8: false,
        source: "geerlingguy/raspberry-pi-pcie-devices issue #790 (nvidia-smi 12288MiB, NVIDIA GeForce RTX 3060 12GB, driver 580.95.05; the 8 GB RTX 3060 reports the same name with less memory, the RTX 3060 Ti is not this entry)",
    },
    Entry {
        id: "rtx-3090",
        name: "NVIDIA GeForce RTX 3090",
        memory_mib: 24576,
        compute_capability: Some("8.6"),
        bf16: true,
        fp8: false,
        source: "club-3090 issue #32 (nvidia-smi 24576MiB)",
    },
    Entry {
        id: "rtx-4090",
        name: "NVIDIA GeForce RTX 4090",
        memory_mib: 24564,
        compute_capability: Some("8.9"),
        bf16: true,
        fp8: true,
        source: "RLinf issue #255 (nvidia-smi 24564MiB)",
    },
    Entry {
        id: "rtx-4060-ti-16gb",
        name: "NVIDIA GeForce RTX 4060 Ti",
        memory_mib: 16380,
        compute_capability: Some("8.9"),
        bf16: true,
        fp8: true,
        source: "public nvidia-smi outputs of NVIDIA GeForce RTX 4060 Ti 16 GB (`NVIDIA GeForce RTX 4060 Ti, 16380 MiB, compute capability 8.9`, code index file id 69280214825; 16380 MiB, driver 595.71.05, code index file id 55161907312); ryujaehun/pytorch-gpu-benchmark PR #24 (4060 Ti 16GB); the 8 GB card of the same name reports its own memory",
    },
    Entry {
        id: "rtx-4080",
        name: "NVIDIA GeForce RTX 4080",
        memory_mib: 16376,
        compute_capability: Some("8.9"),
        bf16: true,
        fp8: true,
        source: "public nvidia-smi --query-gpu outputs of NVIDIA GeForce RTX 4080 (`NVIDIA GeForce RTX 4080, 16376 MiB, driver 596.49`, code index file id 59859675214; `16376MiB` in an Ultralytics CUDA banner, code index file id 25147725436); olealgoritme/gddr6 PR #12 (RTX 4080, AD103); the RTX 4080 SUPER is another card",
    },
    Entry {
        id: "rtx-5090",
        name: "NVIDIA GeForce RTX 5090",
        memory_mib: 32607,
        compute_capability: Some("12.0"),
        bf16: true,
        fp8: true,
        source: "club-3090 issue #617 (nvidia-smi 32607MiB)",
    },
    Entry {
        id: "rtx-a4000",
        name: "NVIDIA RTX A4000",
        memory_mib: 16376,
        compute_capability: Some("8.6"),
        bf16: true,
        fp8: false,
        source: "geerlingguy/raspberry-pi-pcie-devices issue #791 (nvidia-smi 16376MiB, NVIDIA RTX A4000, driver 580.95.05)",
    },
    Entry {
        id: "rtx-a5000",
        name: "NVIDIA RTX A5000",
        memory_mib: 24564,
        compute_capability: Some("8.6"),
        bf16: true,
        fp8: false,
        source: "akash-network/provider-configs PR #83 (nvidia-smi 24564 MiB, NVIDIA RTX A5000, driver 570.211.01)",
    },
    Entry {
        id: "rtx-a6000",
        name: "NVIDIA RTX A6000",
        memory_mib: 49140,
        compute_capability: Some("8.6"),
        bf16: true,
        fp8: false,
        source: "public nvidia-smi outputs of NVIDIA RTX A6000",
    },
    Entry {
        id: "rtx-6000-ada",
        name: "NVIDIA RTX 6000 Ada Generation",
        memory_mib: 46068,
        compute_capability: Some("8.9"),
        bf16: true,
        fp8: true,
        source: "DINGYANB/MTVCrafter issue #21 (nvidia-smi 46068MiB, `NVIDIA RTX 6000 Ada Gene...`: the total with ECC on, as the L40S on the same AD102 reports; 49140 MiB with ECC off)",
    },
    Entry {
        id: "quadro-rtx-6000",
        name: "Quadro RTX 6000",
        memory_mib: 24576,
        compute_capability: Some("7.5"),
        bf16: false,
        fp8: false,
        source: "public nvidia-smi outputs (24576 MiB with ECC off, 23040 MiB with ECC on)",
    },
    Entry { id: "a100-40gb", name: "NVIDIA A100-SXM4-40GB", memory_mib: 40960, compute_capability: Some("8.0"), bf16: true, fp8: false, source: MODAL },
    Entry { id: "a100-80gb", name: "NVIDIA A100-SXM4-80GB", memory_mib: 81920, compute_capability: Some("8.0"), bf16: true, fp8: false, source: MODAL },
    Entry {
        id: "a800-80gb",
        name: "NVIDIA A800-SXM4-80GB",
        memory_mib: 81920,
        compute_capability: Some("8.0"),
        bf16: true,
        fp8: false,
        source: "dexmal/dexbotic issue #41 (nvidia-smi 81920MiB, NVIDIA A800-SXM4-80GB, driver 535.86.10); NVIDIA A800 80GB PCIe reports 81920MiB too, vllm issue #41519",
    },
    Entry {
        id: "h100-sxm",
        name: "NVIDIA H100 80GB HBM3",
        memory_mib: 81559,
        compute_capability: Some("9.0"),
        bf16: true,
        fp8: true,
        source: "vllm issue #27508 (nvidia-smi 81559MiB)",
    },
    Entry {
        id: "h100-pcie",
        name: "NVIDIA H100 PCIe",
        memory_mib: 81559,
        compute_capability: Some("9.0"),
        bf16: true,
        fp8: true,
        source: "public nvidia-smi outputs of NVIDIA H100 PCIe",
    },
    Entry {
        id: "h100-nvl",
        name: "NVIDIA H100 NVL",
        memory_mib: 95830,
        compute_capability: Some("9.0"),
        bf16: true,
        fp8: true,
        source: "NVIDIA/gpu-admin-tools issue #4 (nvidia-smi `NVIDIA H100 NVL`, 0MiB / 95830MiB, driver 535.183.01: the 94 GB HBM3 card); `NVIDIA H100 NVL, 95830 MiB, 580.178.04` from --query-gpu, code index file id 71044418778",
    },
    Entry {
        id: "h800",
        name: "NVIDIA H800",
        memory_mib: 81559,
        compute_capability: Some("9.0"),
        bf16: true,
        fp8: true,
        source: "public nvidia-smi --query-gpu output of NVIDIA H800 (`NVIDIA H800, 81559 MiB, 570.158.01`, code index file id 71303046155: the 80 GB HBM3 total the H100 SXM reports); NVIDIA/DCGM issue #120 (nvidia-smi -q, Product Name NVIDIA H800); H800 SXM in deepseek-ai/DeepGEMM issue #17",
    },
    Entry {
        id: "h20",
        name: "NVIDIA H20",
        memory_mib: 97871,
        compute_capability: Some("9.0"),
        bf16: true,
        fp8: true,
        source: "public nvidia-smi output of NVIDIA H20 (97871 MiB, driver 550.144.03, ace-compiler artifact notes; the total of 96 GB HBM3, as GH200 96GB reports); CC 9.0 in sglang issue #12373 (check_env)",
    },
    Entry {
        id: "h200",
        name: "NVIDIA H200",
        memory_mib: 143771,
        compute_capability: Some("9.0"),
        bf16: true,
        fp8: true,
        source: "public nvidia-smi outputs of NVIDIA H200",
    },
    Entry {
        id: "b200",
        name: "NVIDIA B200",
        memory_mib: 183359,
        compute_capability: Some("10.0"),
        bf16: true,
        fp8: true,
        source: "TensorRT-LLM issue #10278 (nvidia-smi 183359MiB)",
    },
    Entry {
        id: "mi250x",
        name: "AMD Instinct MI250X",
        memory_mib: 65520,
        compute_capability: None,
        bf16: true,
        fp8: false,
        source: "rocm-smi 68702699520 B per GCD; fp8 absent (gfx942-only gating, ROCm/flash-attention#146)",
    },
    Entry {
        id: "mi300x",
        name: "AMD Instinct MI300X",
        memory_mib: 196592,
        compute_capability: None,
        bf16: true,
        fp8: true,
        source: "rocm-smi 206141652992 B; FNUZ fp8 (ROCm precision-support docs)",
    },
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
pub(crate) fn catalog(custom: &[GpuTarget]) -> Vec<GpuTarget> {
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
    /// The memory in bytes; checked (a manifest's `memory-mib` is at most
    /// `schema::gpu_target::MAX_MEMORY_MIB`), saturating rather than wrapping to 0.
    pub(crate) fn memory_bytes(&self) -> u64 {
        self.memory_mib.saturating_mul(1024 * 1024)
    }
}

/// Why `--gpu auto` found no GPU: said plainly, exit 2, never a guess.
#[derive(Clone, Debug, PartialEq)]
pub struct DetectError(pub String);

/// What the local probe found for `--gpu auto`: the smallest visible device,
/// as the tool names it, and the memory it reports. `match_name` turns it into
/// a target of a catalog.
#[derive(Clone, Debug, PartialEq)]
pub struct ProbedGpu {
    pub name: String,
    pub memory_mib: u64,
}

/// The local GPU for `--gpu auto`: asks `nvidia-smi` (or `rocm-smi`), keeps the
/// devices `CUDA_VISIBLE_DEVICES` leaves visible, and returns the smallest.
/// This runs a process: the command layer calls it and passes the answer into
/// `Settings` (`Overrides::gpu_probe`); building settings never probes.
///
/// The programs are looked up on `PATH` here, never by the shell's rules:
/// relative entries (`.`, `bin`, an empty entry) are skipped, and so is any
/// entry inside `untrusted` (the working directory and the project's folders),
/// so an `nvidia-smi` planted in a cloned repository is never run. The
/// program found is run by its absolute path.
pub(crate) fn probe(untrusted: &[std::path::PathBuf]) -> Result<ProbedGpu, DetectError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    probe_with(&path, untrusted)
}

/// How long a GPU query program may run, and how much of its output is read: nvidia-smi answers
/// in well under a second and its four-field lines are a few hundred bytes; a hung driver or a
/// program that floods its output must not hang trainlint or fill its memory (issue 26 item 6).
pub(crate) const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);
const PROBE_OUTPUT_BYTES: u64 = 1 << 20;

/// A program's exit status and its output (each stream cut at `PROBE_OUTPUT_BYTES`), or why
/// there is none: it could not start, or it ran past `timeout` and was killed.
pub(crate) fn run_bounded(program: &std::path::Path, args: &[&str], timeout: std::time::Duration) -> Result<(bool, String, String), String> {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let mut child =
        Command::new(program).args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| format!("cannot run: {e}"))?;
    let reader = |stream: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = Vec::new();
            if let Some(stream) = stream {
                let mut stream = stream.take(PROBE_OUTPUT_BYTES);
                let _ = stream.read_to_end(&mut text);
            }
            String::from_utf8_lossy(&text).into_owned()
        })
    };
    let out = reader(child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    let err = reader(child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>));
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() < timeout => std::thread::sleep(std::time::Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("did not answer within {} s", timeout.as_secs()));
            }
        }
    };
    let (out, err) = (out.join().unwrap_or_default(), err.join().unwrap_or_default());
    if out.len() as u64 >= PROBE_OUTPUT_BYTES {
        return Err(format!("printed more than {} MiB", PROBE_OUTPUT_BYTES >> 20));
    }
    Ok((status.success(), out, err))
}

/// `probe` with the `PATH` value given.
pub(crate) fn probe_with(path: &std::ffi::OsStr, untrusted: &[std::path::PathBuf]) -> Result<ProbedGpu, DetectError> {
    probe_within(path, untrusted, PROBE_TIMEOUT)
}

/// `probe_with` with the time a query program may take.
pub fn probe_within(path: &std::ffi::OsStr, untrusted: &[std::path::PathBuf], timeout: std::time::Duration) -> Result<ProbedGpu, DetectError> {
    let Some(nvidia_smi) = find_program("nvidia-smi", path, untrusted) else { return probe_rocm(path, untrusted, timeout) };
    let output = run_bounded(&nvidia_smi, &["--query-gpu=index,uuid,name,memory.total", "--format=csv,noheader,nounits"], timeout);
    let text = match output {
        Ok((true, stdout, _)) => stdout,
        Ok((false, _, stderr)) => return Err(DetectError(format!("nvidia-smi failed: {}", stderr.trim()))),
        Err(why) if !why.starts_with("cannot run") => return Err(DetectError(format!("nvidia-smi {why}"))),
        Err(_) => return probe_rocm(path, untrusted, timeout),
    };
    let visible = std::env::var("CUDA_VISIBLE_DEVICES").ok();
    from_nvidia_smi(&text, visible.as_deref())
}

/// Parses `index, uuid, name, memory.total` lines (MiB) as nvidia-smi prints them.
pub(crate) fn from_nvidia_smi(text: &str, visible: Option<&str>) -> Result<ProbedGpu, DetectError> {
    let mut devices = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let [index, uuid, name, memory] = fields.as_slice() else {
            return Err(DetectError(format!("cannot read nvidia-smi's answer: `{}`", line.trim())));
        };
        let memory: u64 = memory.parse().map_err(|_| DetectError(format!("cannot read nvidia-smi's memory `{memory}` (MiB expected)")))?;
        devices.push((index.to_string(), uuid.to_string(), name.to_string(), memory));
    }
    if let Some(visible) = visible.map(str::trim) {
        if visible.is_empty() || visible == "-1" || visible == "NoDevFiles" {
            return Err(DetectError("CUDA_VISIBLE_DEVICES hides every GPU".into()));
        }
        let wanted: Vec<&str> = visible.split(',').map(str::trim).collect();
        devices.retain(|(index, uuid, _, _)| wanted.iter().any(|w| w == index || uuid.starts_with(w)));
    }
    let (_, _, name, memory_mib) = devices.into_iter().min_by_key(|d| d.3).ok_or_else(|| DetectError("nvidia-smi lists no visible GPU".into()))?;
    Ok(ProbedGpu { name, memory_mib })
}

pub(crate) use crate::load::programs::find_program;

fn probe_rocm(path: &std::ffi::OsStr, untrusted: &[std::path::PathBuf], timeout: std::time::Duration) -> Result<ProbedGpu, DetectError> {
    let Some(rocm_smi) = find_program("rocm-smi", path, untrusted) else {
        return Err(DetectError(
            "no GPU found: neither nvidia-smi nor rocm-smi is on PATH (relative PATH entries and the project's folders are not searched)".into(),
        ));
    };
    let text = match run_bounded(&rocm_smi, &["--showproductname", "--showmeminfo", "vram", "--csv"], timeout) {
        Ok((true, stdout, _)) => stdout,
        Err(why) if !why.starts_with("cannot run") => return Err(DetectError(format!("rocm-smi {why}"))),
        _ => return Err(DetectError("no GPU found: neither nvidia-smi nor rocm-smi can be run".into())),
    };
    // CSV with a header naming `VRAM Total Memory (B)` and `Card series`/`Card SKU` columns.
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<&str> = lines.next().unwrap_or("").split(',').collect();
    let memory_column = header.iter().position(|h| h.contains("VRAM Total Memory (B)"));
    let name_column = header.iter().position(|h| h.contains("Card series") || h.contains("Card SKU") || h.contains("Card model"));
    let (Some(memory_column), Some(name_column)) = (memory_column, name_column) else {
        return Err(DetectError("cannot read rocm-smi's answer".into()));
    };
    let mut best: Option<(String, u64)> = None;
    for line in lines {
        let fields: Vec<&str> = line.split(',').collect();
        let bytes: u64 = fields.get(memory_column).and_then(|m| m.trim().parse().ok()).ok_or_else(|| DetectError("cannot read rocm-smi's memory".into()))?;
        let mib = bytes / (1024 * 1024);
        if best.as_ref().is_none_or(|b| mib < b.1) {
            best = Some((fields.get(name_column).unwrap_or(&"AMD GPU").trim().to_owned(), mib));
        }
    }
    let (name, memory_mib) = best.ok_or_else(|| DetectError("rocm-smi lists no GPU".into()))?;
    Ok(ProbedGpu { name, memory_mib })
}

/// Words that make a different card of the same number (`RTX 3060 Ti` is not
/// the `RTX 3060`, `RTX 4080 SUPER` not the `RTX 4080`): a reported name with
/// one of them matches only an id that has it too.
const VARIANT_WORDS: [&str; 2] = ["ti", "super"];

fn tokens(text: &str) -> Vec<String> {
    text.to_ascii_lowercase().split(|c: char| !c.is_ascii_alphanumeric()).filter(|t| !t.is_empty()).map(str::to_owned).collect()
}

/// The catalog entry a reported name is (by its id's words, or its exact name),
/// with the reported memory (ECC, drivers and MIG change it); or a custom
/// target named after the GPU. The note says which, for the user.
pub(crate) fn match_name(name: &str, memory_mib: u64, catalog: &[GpuTarget]) -> (GpuTarget, String) {
    let reported = tokens(name);
    let by_name = catalog.iter().find(|t| t.name.eq_ignore_ascii_case(name.trim()));
    let by_id = catalog
        .iter()
        .filter(|t| {
            let id = tokens(&t.id);
            id.iter().all(|token| reported.contains(token))
                && VARIANT_WORDS.iter().all(|word| !reported.iter().any(|r| r == word) || id.iter().any(|i| i == word))
        })
        .max_by_key(|t| (tokens(&t.id).len(), std::cmp::Reverse(t.memory_mib.abs_diff(memory_mib))));
    match by_name.or(by_id) {
        Some(known) => {
            let mut target = known.clone();
            target.memory_mib = memory_mib;
            let note = format!("detected `{name}` with {memory_mib} MiB: the catalog's {} with the reported memory", known.id);
            (target, note)
        }
        None => {
            let id = format!("auto-{}", tokens(name).join("-"));
            let note = format!(
                "detected `{name}` with {memory_mib} MiB, which the catalog does not know: a custom target with that memory (bf16/fp8 support unknown, so HW001/HW002 are not checked)"
            );
            (
                GpuTarget {
                    id,
                    name: name.trim().to_owned(),
                    memory_mib,
                    compute_capability: None,
                    bf16: true,
                    fp8: true,
                    sources: vec!["nvidia-smi / rocm-smi on this machine".into()],
                },
                note,
            )
        }
    }
}

#[cfg(test)]
mod detect_tests {
    use super::*;

    fn check(text: &str, visible: Option<&str>) -> Result<(String, u64), DetectError> {
        from_nvidia_smi(text, visible).map(|p| match_name(&p.name, p.memory_mib, &builtin())).map(|(t, _)| (t.id, t.memory_mib))
    }

    #[test]
    fn names_and_memory() {
        assert_eq!(check("0, GPU-aa, Quadro RTX 6000, 24576\n", None).unwrap(), ("quadro-rtx-6000".into(), 24576));
        assert_eq!(check("0, GPU-aa, Quadro RTX 6000, 23040\n", None).unwrap(), ("quadro-rtx-6000".into(), 23040), "ECC on: the reported memory");
        assert_eq!(
            check("0, GPU-a, NVIDIA A100-SXM4-80GB, 81920\n1, GPU-b, NVIDIA A100-SXM4-40GB, 40960\n", None).unwrap().0,
            "a100-40gb",
            "the smallest visible"
        );
        assert_eq!(
            check("0, GPU-a, NVIDIA A100-SXM4-80GB, 81920\n1, GPU-b, NVIDIA A100-SXM4-40GB, 40960\n", Some("0")).unwrap().0,
            "a100-80gb",
            "CUDA_VISIBLE_DEVICES"
        );
        assert_eq!(check("0, GPU-a, NVIDIA H100 80GB HBM3, 81559\n", None).unwrap().0, "h100-sxm");
        assert_eq!(check("0, GPU-a, NVIDIA A10G, 23028\n", None).unwrap().0, "a10g");
        assert_eq!(check("0, GPU-a, Tesla V100-SXM2-32GB, 32510\n", None).unwrap().0, "v100-32gb");
        assert_eq!(check("0, GPU-a, NVIDIA GeForce RTX 4090, 24564\n", None).unwrap().0, "rtx-4090");
        assert_eq!(check("0, GPU-a, NVIDIA Future X900, 99000\n", None).unwrap(), ("auto-nvidia-future-x900".into(), 99000));
        assert!(check("garbage\n", None).is_err());
        assert!(check("", None).is_err());
        assert!(check("0, GPU-a, NVIDIA A10G, 23028\n", Some("")).is_err());
    }

    /// The nvidia-smi names of the GPUs added after gpus.json (older drivers
    /// drop the `NVIDIA ` prefix of GeForce and TITAN names).
    #[test]
    fn names_of_the_added_gpus() {
        assert_eq!(check("0, GPU-a, NVIDIA GeForce RTX 2080 Ti, 11264\n", None).unwrap(), ("rtx-2080-ti".into(), 11264));
        assert_eq!(check("0, GPU-a, GeForce RTX 2080 Ti, 11019\n", None).unwrap(), ("rtx-2080-ti".into(), 11019));
        assert_eq!(check("0, GPU-a, TITAN RTX, 24220\n", None).unwrap(), ("titan-rtx".into(), 24220));
        assert_eq!(check("0, GPU-a, NVIDIA TITAN RTX, 24576\n", None).unwrap(), ("titan-rtx".into(), 24576));
        assert_eq!(check("0, GPU-a, NVIDIA GeForce RTX 5090, 32607\n", None).unwrap(), ("rtx-5090".into(), 32607));
        assert_eq!(check("0, GPU-a, NVIDIA H20, 97871\n", None).unwrap(), ("h20".into(), 97871));
        assert_eq!(check("0, GPU-a, NVIDIA H200, 143771\n", None).unwrap().0, "h200", "H200 is not the H20");
        assert_eq!(check("0, GPU-a, Tesla P100-PCIE-16GB, 16280\n", None).unwrap(), ("p100-16gb".into(), 16280));
        assert_eq!(check("0, GPU-a, Tesla P100-SXM2-16GB, 16384\n", None).unwrap(), ("p100-16gb".into(), 16384));
        assert_eq!(check("0, GPU-a, Tesla V100-SXM2-16GB, 16384\n", None).unwrap().0, "v100-16gb", "V100 16GB is not the P100 16GB");
        assert_eq!(check("0, GPU-a, NVIDIA GeForce RTX 2080, 8192\n", None).unwrap().0, "auto-nvidia-geforce-rtx-2080", "the 2080 is not the 2080 Ti");
        assert_eq!(check("0, GPU-a, Tesla P100-PCIE-12GB, 12198\n", None).unwrap().0, "auto-tesla-p100-pcie-12gb", "the 12 GB P100 is not catalogued");
        let catalog = builtin();
        let (target, _) = match_name("Tesla P100-PCIE-16GB", 16280, &catalog);
        assert!(!target.bf16 && !target.fp8 && target.compute_capability.as_deref() == Some("6.0"));
        let (target, _) = match_name("NVIDIA H20", 97871, &catalog);
        assert!(target.bf16 && target.fp8 && target.compute_capability.as_deref() == Some("9.0"));
    }

    /// The nvidia-smi names of the workstation cards, the RTX 3060 and the A800,
    /// and the look-alikes each must not be taken for.
    #[test]
    fn names_of_the_later_added_gpus_and_their_look_alikes() {
        assert_eq!(check("0, GPU-a, NVIDIA RTX 6000 Ada Generation, 49140\n", None).unwrap(), ("rtx-6000-ada".into(), 49140), "ECC off");
        assert_eq!(check("0, GPU-a, NVIDIA RTX 6000 Ada Generation, 46068\n", None).unwrap(), ("rtx-6000-ada".into(), 46068), "ECC on");
        assert_eq!(check("0, GPU-a, Quadro RTX 6000, 24576\n", None).unwrap().0, "quadro-rtx-6000", "the Turing RTX 6000 is not the Ada one");
        assert_eq!(check("0, GPU-a, NVIDIA RTX A6000, 49140\n", None).unwrap().0, "rtx-a6000", "the RTX A6000 is not the RTX 6000 Ada");
        assert_eq!(
            check("0, GPU-a, NVIDIA RTX PRO 6000 Blackwell Workstation Edition, 97887\n", None).unwrap().0,
            "auto-nvidia-rtx-pro-6000-blackwell-workstation-edition",
            "the Blackwell RTX PRO 6000 is not catalogued"
        );
        assert_eq!(check("0, GPU-a, NVIDIA RTX A5000, 24564\n", None).unwrap(), ("rtx-a5000".into(), 24564));
        assert_eq!(check("0, GPU-a, NVIDIA RTX 5000 Ada Generation, 32760\n", None).unwrap().0, "auto-nvidia-rtx-5000-ada-generation", "not the RTX A5000");
        assert_eq!(check("0, GPU-a, NVIDIA RTX A4000, 16376\n", None).unwrap(), ("rtx-a4000".into(), 16376));
        assert_eq!(check("0, GPU-a, Quadro RTX 4000, 8192\n", None).unwrap().0, "auto-quadro-rtx-4000", "the Quadro RTX 4000 is not the RTX A4000");
        assert_eq!(check("0, GPU-a, NVIDIA RTX 4000 Ada Generation, 20475\n", None).unwrap().0, "auto-nvidia-rtx-4000-ada-generation", "not the RTX A4000");
        assert_eq!(check("0, GPU-a, NVIDIA GeForce RTX 3060, 12288\n", None).unwrap(), ("rtx-3060".into(), 12288));
        assert_eq!(check("0, GPU-a, NVIDIA GeForce RTX 3060, 8192\n", None).unwrap(), ("rtx-3060".into(), 8192), "the 8 GB RTX 3060: the reported memory");
        assert_eq!(check("0, GPU-a, NVIDIA GeForce RTX 3060 Ti, 8192\n", None).unwrap().0, "auto-nvidia-geforce-rtx-3060-ti", "the 3060 Ti is not the 3060");
        assert_eq!(check("0, GPU-a, NVIDIA GeForce RTX 4080 SUPER, 16376\n", None).unwrap().0, "auto-nvidia-geforce-rtx-4080-super");
        assert_eq!(check("0, GPU-a, NVIDIA A800-SXM4-80GB, 81920\n", None).unwrap(), ("a800-80gb".into(), 81920));
        assert_eq!(check("0, GPU-a, NVIDIA A800 80GB PCIe, 81920\n", None).unwrap(), ("a800-80gb".into(), 81920));
        assert_eq!(check("0, GPU-a, NVIDIA A800-SXM4-40GB, 40960\n", None).unwrap().0, "auto-nvidia-a800-sxm4-40gb", "the 40 GB A800 is not catalogued");
        assert_eq!(check("0, GPU-a, NVIDIA A100-SXM4-80GB, 81920\n", None).unwrap().0, "a100-80gb", "the A100 is not the A800");
        assert_eq!(check("0, GPU-a, NVIDIA A100 80GB PCIe, 81920\n", None).unwrap().0, "a100-80gb");
        let catalog = builtin();
        let (target, _) = match_name("NVIDIA RTX 6000 Ada Generation", 49140, &catalog);
        assert!(target.bf16 && target.fp8 && target.compute_capability.as_deref() == Some("8.9"));
        for name in ["NVIDIA RTX A5000", "NVIDIA RTX A4000", "NVIDIA GeForce RTX 3060"] {
            let (target, _) = match_name(name, 16000, &catalog);
            assert!(target.bf16 && !target.fp8 && target.compute_capability.as_deref() == Some("8.6"), "{name}");
        }
        let (target, _) = match_name("NVIDIA A800-SXM4-80GB", 81920, &catalog);
        assert!(target.bf16 && !target.fp8 && target.compute_capability.as_deref() == Some("8.0"));
    }

    /// Issue 24 item 2: A40, L20, H800, RTX 4080 and RTX 4060 Ti 16 GB by the names nvidia-smi gives them.
    #[test]
    fn names_of_the_issue_24_gpus_and_their_look_alikes() {
        assert_eq!(check("0, GPU-a, NVIDIA A40, 46068\n", None).unwrap(), ("a40".into(), 46068));
        assert_eq!(check("0, GPU-a, NVIDIA L20, 46068\n", None).unwrap(), ("l20".into(), 46068));
        assert_eq!(check("0, GPU-a, NVIDIA L40S, 46068\n", None).unwrap().0, "l40s", "the L40S is not the L20");
        assert_eq!(check("0, GPU-a, NVIDIA H800, 81559\n", None).unwrap(), ("h800".into(), 81559));
        assert_eq!(check("0, GPU-a, NVIDIA H800 PCIe, 81559\n", None).unwrap().0, "h800");
        assert_eq!(check("0, GPU-a, NVIDIA H100 NVL, 95830\n", None).unwrap(), ("h100-nvl".into(), 95830));
        assert_eq!(check("0, GPU-a, NVIDIA H100 PCIe, 81559\n", None).unwrap().0, "h100-pcie", "the PCIe card is not the NVL");
        assert_eq!(check("0, GPU-a, NVIDIA GeForce RTX 4080, 16376\n", None).unwrap(), ("rtx-4080".into(), 16376));
        assert_eq!(check("0, GPU-a, NVIDIA GeForce RTX 4080 SUPER, 16376\n", None).unwrap().0, "auto-nvidia-geforce-rtx-4080-super");
        assert_eq!(check("0, GPU-a, NVIDIA GeForce RTX 4060 Ti, 16380\n", None).unwrap(), ("rtx-4060-ti-16gb".into(), 16380));
        assert_eq!(
            check("0, GPU-a, NVIDIA GeForce RTX 4060 Ti, 8188\n", None).unwrap(),
            ("rtx-4060-ti-16gb".into(), 8188),
            "the 8 GB card: the reported memory"
        );
        assert_eq!(check("0, GPU-a, NVIDIA GeForce RTX 4060, 8188\n", None).unwrap().0, "auto-nvidia-geforce-rtx-4060", "the 4060 is not the 4060 Ti");
        let catalog = builtin();
        // ROCm names the gfx90a cards `AMD Instinct MI250X / MI250` (public rocminfo logs, code index file id 56686984656).
        assert_eq!(match_name("AMD Instinct MI250X / MI250", 65520, &catalog).0.id, "mi250x");
        for (name, cc, fp8) in
            [("NVIDIA A40", "8.6", false), ("NVIDIA L20", "8.9", true), ("NVIDIA H800", "9.0", true), ("NVIDIA GeForce RTX 4080", "8.9", true)]
        {
            let (target, _) = match_name(name, 16000, &catalog);
            assert!(target.bf16 && target.fp8 == fp8 && target.compute_capability.as_deref() == Some(cc), "{name}");
        }
    }

    /// Issue 13 item 9: only absolute PATH entries outside the untrusted folders are searched.
    #[test]
    fn find_program_skips_relative_and_untrusted_entries() {
        use std::os::unix::fs::PermissionsExt;
        use std::path::Path;
        let dir = std::env::temp_dir().join(format!("trainlint-find-program-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        for sub in ["project/bin", "system"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
            std::fs::write(dir.join(sub).join("tool"), "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(dir.join(sub).join("tool"), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        std::fs::write(dir.join("system/plain"), "").unwrap();
        let path = std::env::join_paths([Path::new("."), Path::new("project/bin"), &dir.join("project/bin"), &dir.join("system")]).unwrap();
        let untrusted = [dir.join("project")];
        let system = std::fs::canonicalize(dir.join("system")).unwrap();
        assert_eq!(find_program("tool", &path, &untrusted), Some(system.join("tool")));
        assert_eq!(find_program("tool", &path, &[]), Some(std::fs::canonicalize(dir.join("project/bin")).unwrap().join("tool")));
        assert_eq!(find_program("plain", &path, &untrusted), None, "not executable");
        assert_eq!(find_program("tool", &std::env::join_paths([Path::new("."), Path::new("")]).unwrap(), &[]), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
