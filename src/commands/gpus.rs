use crate::error::FatalError;
use crate::render::OutputFormat;
use crate::settings::Overrides;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct GpusArgs {
    #[arg(long, default_value = "full", value_parser = crate::render::formats(OutputFormat::TABLE))]
    pub output_format: OutputFormat,
    /// Use this manifest (for its custom `[[gpu]]` targets).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

pub(crate) fn run(args: &GpusArgs) -> Result<ExitCode, FatalError> {
    let mut overrides = Overrides { config: args.config.clone(), ..Overrides::default() };
    let settings = super::settings_for(&[], &mut overrides)?;
    let output = match args.output_format {
        OutputFormat::Json => crate::render::json::gpus(&settings.catalog),
        _ => {
            let mut out = format!("{:<16} {:<30} {:>10} {:>8} {:>4} {:>4}\n", "ID", "NAME", "MEMORY", "CC", "BF16", "FP8");
            for t in &settings.catalog {
                out.push_str(&format!(
                    "{:<16} {:<30} {:>6} MiB {:>8} {:>4} {:>4}\n",
                    t.id,
                    t.name,
                    t.memory_mib,
                    t.compute_capability.as_deref().unwrap_or("ROCm"),
                    if t.bf16 { "yes" } else { "no" },
                    if t.fp8 { "yes" } else { "no" }
                ));
            }
            out.push_str("\nMemory is the total nvidia-smi reports (rocm-smi for AMD); `trainlint gpus --output-format json` includes the sources.\n");
            out
        }
    };
    super::print(&output);
    Ok(ExitCode::SUCCESS)
}
