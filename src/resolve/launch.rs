//! The world a project's launch scripts give a config. When a tree is linted,
//! the `.sh`, `.sbatch` and `.slurm` files and the READMEs' fenced shell blocks near a
//! config (its folder, up to three folders above it and the project root, each searched
//! two folders deep) are read through the `Loader` — never executed — and their launch lines
//! (`load::shell::launches`) linked to the configs they pass. A config a script
//! launches gets that launch's world (`WorldSource::Launcher`) when neither the
//! config nor `--world-size` says the world, and the launch's Hydra overrides
//! (`trainer.devices=8`) applied in memory, before `--set`.
//!
//! Two launches of the same config with different worlds: the smallest world is
//! used (the one where each process holds the largest share of the batch, and
//! the one the memory rules should fit), and the others are named in the
//! provenance. Its overrides are those of the chosen launch.

use crate::load::shell::{Launch, launches};
use crate::load::tree::Value;
use crate::settings::Settings;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Largest script read (bytes): a launch script is short.
const MAX_SCRIPT_BYTES: u64 = 256 * 1024;
/// Folders above a config searched for scripts, and folders below each.
const LEVELS_UP: usize = 3;
const LEVELS_DOWN: usize = 2;

/// What the launch scripts say about one config.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Linked {
    /// The launch's world, with where it came from ("scripts/train.sh:3 (#SBATCH …)").
    pub world: Option<(u64, String)>,
    /// Hydra overrides the chosen launch passes (`trainer.devices=8`).
    pub overrides: Vec<(String, String)>,
    /// The chosen launch's line (`scripts/train.sh:3`).
    pub at: Option<String>,
    /// The first launch that passes training flags with the config (`torchrun train.py
    /// --deepspeed ds.json --per_device_train_batch_size 4`): the script, as displayed, and the
    /// launch's line. HF's DeepSpeed integration fills the config's `"auto"` from those flags.
    pub with_flags: Option<(PathBuf, String, usize)>,
    /// The accelerate config the chosen launch names (`accelerate launch --config_file F`), found
    /// on disk: its DeepSpeed/FSDP plugin and `mixed_precision` are the run's
    /// (`resolve::fill_from_accelerate`).
    pub accelerate: Option<PathBuf>,
    /// The program the chosen launch runs (`src/open_r1/grpo.py`, as written): what it trains
    /// may be the program's, not the config's (`Framework::derived_launched`).
    pub program: Option<String>,
}

struct Found {
    path: PathBuf,
    display: String,
    launch: Launch,
    world: Option<u64>,
    what: String,
    /// Canonical paths of the configs it passes.
    configs: Vec<PathBuf>,
    /// The accelerate config it names, as found on disk.
    accelerate: Option<PathBuf>,
}

fn is_script(name: &str) -> bool {
    [".sh", ".sbatch", ".slurm"].iter().any(|e| name.ends_with(e)) || is_readme(name)
}

/// A README: recipes document their launch commands there (alignment-handbook's
/// `recipes/zephyr-7b-gemma/README.md`: `accelerate launch --config_file
/// recipes/accelerate_configs/zero3.yaml scripts/sft.py --config recipes/…/config_full.yaml`).
fn is_readme(name: &str) -> bool {
    name.eq_ignore_ascii_case("readme.md")
}

/// The shell of a Markdown file's fenced shell blocks (```` ```bash ````, `sh`, `shell`, `zsh`,
/// `console`), every other line blanked so that line numbers stay those of the file; in a
/// `console` block only the commands after a `$ ` prompt (and their `\` continuations) count.
fn markdown_shell(text: &str) -> String {
    #[derive(PartialEq)]
    enum Kind {
        Skip,
        Shell,
        Console,
    }
    let mut out = String::with_capacity(text.len());
    // The open fence: its character, its length, what the block holds.
    let mut block: Option<(char, usize, Kind)> = None;
    let mut continues = false;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let trimmed = body.trim_start();
        let fence = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        let ticks = fence.map_or(0, |f| trimmed.chars().take_while(|c| *c == f).count());
        let mut kept = "";
        match &block {
            None => {
                if let Some(f) = fence.filter(|_| ticks >= 3) {
                    let info = trimmed[ticks..].trim().split([' ', '{', ',']).next().unwrap_or("").to_ascii_lowercase();
                    let kind = match info.as_str() {
                        "bash" | "sh" | "shell" | "zsh" => Kind::Shell,
                        "console" | "shell-session" => Kind::Console,
                        _ => Kind::Skip,
                    };
                    block = Some((f, ticks, kind));
                }
            }
            Some((f, n, kind)) => {
                if fence == Some(*f) && ticks >= *n && trimmed[ticks..].trim().is_empty() {
                    block = None;
                } else if *kind == Kind::Shell {
                    kept = body;
                } else if *kind == Kind::Console {
                    if let Some(command) = trimmed.strip_prefix("$ ") {
                        kept = command;
                    } else if continues {
                        kept = body;
                    }
                }
            }
        }
        continues = kept.trim_end().ends_with('\\');
        out.push_str(kept);
        out.push_str(&line[body.len()..]);
    }
    out
}

fn scripts_under(settings: &Settings, dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    for (name, is_dir) in scan(settings, dir).iter() {
        let path = dir.join(&**name);
        if *is_dir {
            if depth > 0 {
                scripts_under(settings, &path, depth - 1, out);
            }
        } else {
            out.push(path);
        }
    }
}

/// Names in order, `true` for a folder.
type Scan = Box<[(Box<str>, bool)]>;

/// A folder's subfolders and launch scripts, by name in order (`true`: a folder), listed once
/// per run: a folder is under the search of its own folder's launches and of the two above it,
/// and was listed for each.
fn scan(settings: &Settings, dir: &Path) -> Arc<Scan> {
    settings.loader.memo("launch-scan", dir, || {
        let Ok(entries) = settings.loader.list(dir) else { return Box::default() };
        entries
            .into_iter()
            .filter(|e| !(e.name.starts_with('.') || e.name == "node_modules" || e.name == "target"))
            .filter(|e| e.is_dir || is_script(&e.name))
            .map(|e| (e.name.into_boxed_str(), e.is_dir))
            .collect()
    })
}

/// The launches of one script, with the configs resolved to canonical paths.
fn read_script(settings: &Settings, script: &Path, base: &Path) -> Vec<Found> {
    let loader = &settings.loader;
    let Ok(text) = loader.read_text(script) else { return Vec::new() };
    if text.len() as u64 > MAX_SCRIPT_BYTES {
        return Vec::new();
    }
    let text = if script.file_name().and_then(|n| n.to_str()).is_some_and(is_readme) { markdown_shell(&text) } else { text.to_string() };
    let dir = script.parent().unwrap_or(Path::new("")).to_path_buf();
    let display = crate::settings::display(&settings.root, &script.to_string_lossy());
    let mut out = Vec::new();
    for launch in launches(&text) {
        let starts: Vec<PathBuf> = {
            // Launch lines are run from the script's folder or the project root (LLaMA-Factory's
            // `examples/extras/fsdp_qlora/train.sh` names `examples/accelerate/fsdp_config.yaml`).
            let mut s = vec![dir.clone(), base.to_path_buf()];
            s.extend(project_roots(settings));
            if let Some(program) = launch.script.as_deref().and_then(|p| Path::new(p).parent()) {
                s.push(dir.join(program));
                s.push(base.join(program));
            }
            s
        };
        let mut written = launch.configs.clone();
        // `python train.py key=value` with no config named: the script's `@hydra.main(config_path=…, config_name=…)`.
        if written.is_empty()
            && let Some(program) = &launch.script
            && let Some(text) =
                starts.iter().take(2).map(|s| s.join(program)).find_map(|p| loader.read_text(&p).ok()).filter(|t| t.len() as u64 <= MAX_SCRIPT_BYTES)
            && let Some(name) = literal(&text, "config_name")
        {
            let name = if name.ends_with(".yaml") { name } else { format!("{name}.yaml") };
            let folder = Path::new(program).parent().unwrap_or(Path::new(""));
            let path = literal(&text, "config_path").map(|p| folder.join(p).join(&name)).unwrap_or_else(|| folder.join(&name));
            written.push(path.to_string_lossy().into_owned());
        }
        // `accelerate launch train.py` with no config named: a training script that writes its
        // `TrainingArguments` as literals (`load::python`) is the run's config, and this launch its world.
        if written.is_empty()
            && let Some(program) = launch.script.as_deref().filter(|p| p.ends_with(".py"))
        {
            written.push(program.to_owned());
        }
        let configs: Vec<PathBuf> = written.iter().filter_map(|c| starts.iter().find_map(|s| loader.canonical(&s.join(c)))).collect();
        let (mut world, mut what) = (launch.world, launch.what.clone());
        let accelerate = accelerate_file(settings, &starts, &launch);
        // accelerate/commands/launch.py: without `--num_processes`, the config file's
        // `num_processes` (the total over all machines) is the world.
        if world.is_none()
            && let Some((n, how)) = accelerate.as_deref().and_then(|file| accelerate_world(settings, file, &launch))
        {
            world = Some(n);
            what = how;
        }
        // Megatron-DeepSpeed hands DeepSpeed the config it passes with Megatron's model-parallel
        // groups (`deepspeed.initialize(…, mpu=mpu)` or the pipeline's grid, megatron/training.py
        // `setup_model_and_optimizer`): DeepSpeed's data-parallel world is the processes ÷ (tensor ×
        // pipeline × sequence parallel) of the launch line (`validate_args`), which asserts it whole.
        if let Some(processes) = world
            && let Some(flags) = crate::load::shell::flags_of_launch(&text, launch.line)
            && crate::dialects::detect_launch(&flags, launch.script.as_deref())
                .is_some_and(|(d, _)| d == crate::dialects::megatron_deepspeed::MEGATRON_DEEPSPEED)
        {
            let degree = |key: &str| match flags.get(key).map(|n| &n.value) {
                Some(Value::Int(d)) if *d > 0 => *d as u64,
                _ => 1,
            };
            let model_parallel = ["tensor_model_parallel_size", "pipeline_model_parallel_size", "ds_sequence_parallel_size"].map(degree);
            let product = model_parallel.iter().try_fold(1u64, |p, d| p.checked_mul(*d));
            if product != Some(1) {
                let [tp, pp, sp] = model_parallel;
                world = product.filter(|p| processes % p == 0).map(|p| processes / p);
                what = format!(
                    "{what}; ÷ tensor {tp} × pipeline {pp} × sequence parallel {sp} on the launch line: DeepSpeed's data-parallel world under Megatron-DeepSpeed"
                );
            }
        }
        out.push(Found { path: script.to_path_buf(), display: display.clone(), launch, world, what, configs, accelerate });
    }
    out
}

/// The folders a launch line's relative paths may start from besides the script's: the project
/// roots (the manifest's folder, the git work tree, the checked paths).
fn project_roots(settings: &Settings) -> Vec<PathBuf> {
    let mut out = vec![settings.root.clone()];
    out.extend(settings.loader.roots().iter().cloned());
    out
}

/// The accelerate config a launch names (`--config_file F`), tried from each start; a path
/// outside the project is none (the loader would refuse to read it).
fn accelerate_file(settings: &Settings, starts: &[PathBuf], launch: &Launch) -> Option<PathBuf> {
    let file = launch.accelerate_config.as_ref()?;
    starts.iter().map(|s| s.join(file)).find(|p| settings.loader.is_inside_project(p) && settings.loader.is_file(p))
}

/// accelerate/commands/launch.py: without `--num_processes`, the `--config_file` YAML's
/// `num_processes` (the total over all machines) is the world.
fn accelerate_world(settings: &Settings, path: &Path, launch: &Launch) -> Option<(u64, String)> {
    let file = launch.accelerate_config.as_ref()?;
    let document = settings.loader.load(path, file, crate::load::Format::Yaml).ok()?;
    let root = document.root.as_ref().ok()?;
    let Some(Value::Int(n)) = root.get("num_processes").map(|n| &n.value) else { return None };
    (*n > 0).then(|| {
        let notes = launch.what.split_once(';').map(|(_, n)| format!(";{n}")).unwrap_or_default();
        (*n as u64, format!("accelerate launch --config_file {file} (num_processes: {n}){notes}"))
    })
}

/// The accelerate config a launch script's own launch line names, and the world it gives when
/// the line has no `--num_processes` (the script is the run: LMFlow's `run_finetune.sh`).
pub(crate) fn own_accelerate(settings: &Settings, script: &Path, launch: &Launch) -> Option<(PathBuf, Option<(u64, String)>)> {
    let mut starts = vec![script.parent().unwrap_or(Path::new("")).to_path_buf()];
    starts.extend(project_roots(settings));
    let path = accelerate_file(settings, &starts, launch)?;
    let world = accelerate_world(settings, &path, launch);
    Some((path, world))
}

/// Every launch found from `folder` down, memoized per folder for the run.
fn launches_in(settings: &Settings, folder: &Path) -> Arc<Vec<Found>> {
    settings.loader.memo("launch-scripts", folder, || {
        let mut scripts = Vec::new();
        scripts_under(settings, folder, LEVELS_DOWN, &mut scripts);
        scripts.iter().flat_map(|s| read_script(settings, s, folder)).collect()
    })
}

/// One launch of a config: script, line, world, how it was counted, its Hydra overrides, its
/// accelerate config, its program.
type Hit = (String, usize, Option<u64>, String, Vec<(String, String)>, Option<PathBuf>, Option<String>);

/// What the project's launch scripts say about `config`.
pub(crate) fn linked(settings: &Settings, config: &Path) -> Option<Linked> {
    let loader = &settings.loader;
    let this = loader.canonical(config)?;
    let mut found: Vec<Hit> = Vec::new();
    let mut with_flags: Option<(PathBuf, String, usize)> = None;
    // The config's folder and up to `LEVELS_UP` above it, then the project root it lies in: a
    // repository's launch scripts sit at its root or in its `scripts/` (open-r1's `train.sh` launches
    // `recipes/qwen/Qwen2.5-1.5B-Instruct/grpo/config.yaml`, four folders down).
    // The project root is the outermost root holding the config: a checked file's own folder is a
    // root too (`settings::project_roots`), and the search goes on above it to the manifest's folder.
    let top = loader.outermost_holding(&this).map(Path::to_path_buf);
    let mut folders: Vec<PathBuf> = Vec::new();
    let mut folder = this.parent().map(Path::to_path_buf);
    for _ in 0..=LEVELS_UP {
        let Some(dir) = folder else { break };
        folders.push(dir.clone());
        if top.as_ref() == Some(&dir) {
            break;
        }
        folder = dir.parent().filter(|p| top.as_ref().is_none_or(|t| p.starts_with(t))).map(Path::to_path_buf);
    }
    if let Some(root) = top
        && !folders.contains(&root)
    {
        folders.push(root);
    }
    for dir in folders {
        for f in launches_in(settings, &dir).iter().filter(|f| f.configs.contains(&this)) {
            if with_flags.is_none() && f.launch.flags {
                with_flags = Some((f.path.clone(), f.display.clone(), f.launch.line));
            }
            if !found.iter().any(|(d, l, ..)| *d == f.display && *l == f.launch.line) {
                found.push((
                    f.display.clone(),
                    f.launch.line,
                    f.world,
                    f.what.clone(),
                    f.launch.overrides.clone(),
                    f.accelerate.clone(),
                    f.launch.script.clone(),
                ));
            }
        }
    }
    if found.is_empty() {
        return None;
    }
    found.sort_by(|a, b| (a.2.is_none(), a.2, &a.0, a.1).cmp(&(b.2.is_none(), b.2, &b.0, b.1)));
    let (file, line, world, what, overrides, accelerate, program) = found[0].clone();
    let others: Vec<String> = found[1..].iter().filter_map(|(f, l, w, ..)| w.filter(|w| Some(*w) != world).map(|w| format!("{w} from {f}:{l}"))).collect();
    let also = if others.is_empty() { String::new() } else { format!("; the smallest of the worlds its launches give, also {}", others.join(", ")) };
    Some(Linked {
        world: world.map(|w| (w, format!("{file}:{line} ({what}{also})"))),
        overrides,
        at: Some(format!("{file}:{line}")),
        with_flags,
        accelerate,
        program,
    })
}

/// The string literal passed as `name=` in a Python call (`config_name="train.yaml"`).
fn literal(text: &str, name: &str) -> Option<String> {
    let at = text.find("@hydra.main")?;
    let call = &text[at..];
    let call = &call[..call.find(')').unwrap_or(call.len())];
    let rest = call[call.find(name)? + name.len()..].trim_start().strip_prefix('=')?.trim_start();
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &rest[1..];
    Some(body[..body.find(quote)?].to_owned())
}

/// What the config's own header comment launches it with: the world, and the accelerate config
/// the launch names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Header {
    /// The world, with where it was read ("configs/x.yaml:9 (the config's header comment: …)").
    pub world: Option<(u64, String)>,
    /// The accelerate config the launch names (`accelerate launch --config_file F`), found in the
    /// project: its plugin and precision are the run's (`resolve::fill_from_accelerate`).
    pub accelerate: Option<PathBuf>,
}

/// The launch the config's own header comment shows: torchtune's configs open with
/// `# tune run --nproc_per_node 4 full_finetune_distributed --config llama3_1/8B_full`
/// (the command its authors ran); LLaMA-Factory's `examples/ascend/*_fsdp2.yaml` with
/// `# accelerate launch --config_file examples/accelerate/fsdp2_config.yaml src/train.py
/// examples/ascend/….yaml`. It is read as the same line in a launch script would be: the world
/// from the line, else from the accelerate config's `num_processes`; the accelerate config's
/// path from where the command is run (the folder the config's own path on the line starts
/// from, else the project root; never outside the project; a file that is not there gives
/// nothing). Only a launch that names this config counts (`header_launches`);
/// several: the smallest world, as for scripts.
pub(crate) fn from_header(settings: &Settings, display: &str, text: &str, config: &Path) -> Option<Header> {
    let mut best: Option<(Option<u64>, usize, String, Option<PathBuf>)> = None;
    for (line, launch, run_from) in header_launches(text, config) {
        // The folders it may run from, only for a launch that names an accelerate config.
        let accelerate = launch.accelerate_config.as_ref().and_then(|_| {
            let starts: Vec<PathBuf> = run_from.into_iter().chain(project_roots(settings)).collect();
            accelerate_file(settings, &starts, &launch)
        });
        let (world, what) = match launch.world {
            Some(w) => (Some(w), launch.what.clone()),
            None => match accelerate.as_deref().and_then(|file| accelerate_world(settings, file, &launch)) {
                Some((w, how)) => (Some(w), how),
                None => (None, launch.what.clone()),
            },
        };
        if world.is_none() && accelerate.is_none() {
            continue;
        }
        // A known world first, then the smallest.
        if best.as_ref().is_none_or(|(w, ..)| (world.is_none(), world) < (w.is_none(), *w)) {
            best = Some((world, line, what, accelerate));
        }
    }
    let (world, line, what, accelerate) = best?;
    Some(Header { world: world.map(|w| (w, format!("{display}:{line} (the config's header comment: {what})"))), accelerate })
}

/// Whether a header command may name a config whose file stem is `file_stem`: its last
/// component is the stem, so the command holds the stem as written, or builds it. Only a
/// variable, a substitution (`$`, a backtick) or a brace list (`{a,b}`) builds new text; quotes
/// and backslashes only go away (`'8B_full'`, `8B\_full`), so without those the stem is in the
/// command once they are taken out. Prose with an apostrophe is then not read as shell.
fn may_name(command: &str, file_stem: Option<&str>) -> bool {
    let quoting = |c: char| matches!(c, '\'' | '"' | '\\');
    let builds = command.bytes().any(|b| matches!(b, b'$' | b'`' | b'{'));
    match file_stem {
        Some(stem) if !stem.contains(quoting) => builds || command.contains(stem) || (command.contains(quoting) && command.replace(quoting, "").contains(stem)),
        // A stem with a quote or a backslash in it: any quoting may build it.
        Some(stem) => builds || command.contains(stem) || command.contains(quoting),
        None => builds || command.contains(quoting),
    }
}

/// The launches in a config's leading comment block that name the config (`--config` or a
/// positional path, as a path or a torchtune config name, with or without `.yaml`), each with
/// the comment line its command starts on and the folder it is run from as the path it writes
/// for the config shows it (`src/train.py examples/ascend/x.yaml` names
/// `<repo>/examples/ascend/x.yaml`: it runs in `<repo>`). One command per comment line, joined
/// over `\` continuations; prose lines parse to no launch; the block ends at the first line that
/// is neither a comment nor blank.
fn header_launches(text: &str, config: &Path) -> Vec<(usize, Launch, Option<PathBuf>)> {
    let stem = config.with_extension("");
    let written_stem = |written: &str| {
        let written = Path::new(written.trim_start_matches("./"));
        if written.extension().is_some_and(|e| e == "yaml" || e == "yml") { written.with_extension("") } else { written.to_path_buf() }
    };
    let names_this = |written: &Path| !written.as_os_str().is_empty() && stem.ends_with(written);
    // A Python training script (`load::python`) is the program its launch runs, and its header is
    // its comments and its module docstring (`"""…accelerate launch … train.py"""`).
    let python = config.extension().is_some_and(|e| e == "py");
    let runs_this = |launch: &Launch| python && launch.script.as_deref().is_some_and(|s| !s.is_empty() && config.ends_with(s.trim_start_matches("./")));
    let file_stem = stem.file_name().and_then(|s| s.to_str());
    let mut out = Vec::new();
    let mut command = String::new();
    let mut first = 0;
    // In the module docstring: the quotes that close it.
    let mut docstring: Option<&str> = None;
    for (index, line) in text.lines().enumerate() {
        let mut trimmed = line.trim_start();
        if python {
            match docstring {
                Some(quotes) => {
                    if let Some(end) = trimmed.find(quotes) {
                        docstring = None;
                        trimmed = trimmed[..end].trim_end();
                    }
                }
                None => {
                    let unprefixed = trimmed.trim_start_matches(['r', 'R', 'u', 'U']);
                    if let Some(quotes) = ["\"\"\"", "'''"].into_iter().find(|q| unprefixed.starts_with(q)) {
                        let rest = &unprefixed[3..];
                        match rest.find(quotes) {
                            Some(end) => trimmed = rest[..end].trim(),
                            None => {
                                docstring = Some(quotes);
                                trimmed = rest.trim_start();
                            }
                        }
                    } else if !trimmed.is_empty() && !trimmed.starts_with('#') {
                        break;
                    }
                }
            }
        } else if !trimmed.is_empty() && !trimmed.starts_with('#') {
            break;
        }
        let body = trimmed.trim_start_matches('#').trim();
        if command.is_empty() {
            first = index + 1;
        }
        if let Some(part) = body.strip_suffix('\\') {
            command.push_str(part);
            command.push(' ');
            continue;
        }
        command.push_str(body.trim_start_matches("$ "));
        // Only a command that names this config counts, and its name is written out unless the
        // shell builds it: most header comments are prose and licences, not worth reading as shell.
        let may_name_this = may_name(&command, file_stem);
        for launch in if may_name_this { launches(&command) } else { Vec::new() } {
            let written = match launch.configs.iter().map(|c| written_stem(c)).find(|w| names_this(w)) {
                Some(written) => written,
                None if runs_this(&launch) => launch.script.as_deref().map(|s| Path::new(s.trim_start_matches("./")).with_extension("")).unwrap_or_default(),
                None => continue,
            };
            let run_from = config.ancestors().nth(written.components().count()).map(Path::to_path_buf);
            out.push((first, launch, run_from));
        }
        command.clear();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{header_launches, markdown_shell, may_name};
    use std::path::Path;

    /// A header line is read as shell only when it may name the config: prose with an apostrophe
    /// or quotes is not; the stem written out, quoted, escaped or built (a variable, a brace list) is.
    #[test]
    fn a_header_line_is_read_as_shell_only_when_it_may_name_the_config() {
        let stem = Some("8B_full");
        assert!(!may_name("This config assumes that you've run \"tune download\" first", stem));
        assert!(!may_name("tune download meta-llama/Llama-3.1-8B --ignore-patterns \"original/consolidated.00.pth\"", stem));
        assert!(may_name("tune run full_finetune_distributed --config llama3/8B_full", stem));
        assert!(may_name("tune run full_finetune_distributed --config 'llama3/8B_\"full\"'", stem));
        assert!(may_name("tune run full_finetune_distributed --config llama3/8B\\_full", stem));
        assert!(may_name("tune run full_finetune_distributed --config $CONFIG", stem));
        assert!(may_name("tune run full_finetune_distributed --config llama3/8B_{full,lora}", stem));
        assert!(!may_name("tune run full_finetune_distributed --config llama3/8B_lora", stem));
        // A stem with a quote in it: any quoting may build it.
        assert!(may_name("python train.py 'it'\\''s.yaml'", Some("it's")));
    }

    /// The launch a header comment shows, read as a script's line would be: LLaMA-Factory's
    /// `examples/ascend/qwen3_5moe_lora_sft_fsdp2.yaml` (an accelerate config, continued over
    /// `\` lines, given at the line the command starts on), accelerate's other spellings of the
    /// flag and the module, Axolotl's `accelerate launch -m axolotl.cli.train` (no accelerate
    /// config); a launch of another config and a command after the YAML begins do not count.
    #[test]
    fn a_header_launch_names_its_accelerate_config_and_only_launches_of_this_config_count() {
        let config = Path::new("/repo/examples/ascend/qwen3_5moe_lora_sft_fsdp2.yaml");
        let header = "# Start FSDP2 full fine-tuning on Ascend NPU\n# Usage:\n#   accelerate launch \\\n#       --config_file examples/accelerate/fsdp2_config_qwen35_moe.yaml \\\n#       src/train.py examples/ascend/qwen3_5moe_lora_sft_fsdp2.yaml\n#\n# Note: Change `num_processes` in fsdp2_config_qwen35_moe.yaml to match your NPU count\n\n### model\nmodel_name_or_path: Qwen/Qwen3.5-35B-A3B\n";
        let found = header_launches(header, config);
        assert_eq!(found.len(), 1, "{found:?}");
        let (line, launch, run_from) = &found[0];
        assert_eq!(*line, 3, "the line the command starts on");
        assert_eq!(run_from.as_deref(), Some(Path::new("/repo")), "run where `examples/ascend/…` names this config");
        assert_eq!(launch.accelerate_config.as_deref(), Some("examples/accelerate/fsdp2_config_qwen35_moe.yaml"));
        assert_eq!(launch.world, None, "no --num_processes: the accelerate config says it");

        let one = |command: &str| {
            let text = format!("# {command}\nstage: sft\n");
            header_launches(&text, config).into_iter().map(|(_, l, _)| (l.world, l.accelerate_config)).collect::<Vec<_>>()
        };
        let file = Some("a/f.yaml".to_owned());
        assert_eq!(one("accelerate launch --config-file=a/f.yaml src/train.py examples/ascend/qwen3_5moe_lora_sft_fsdp2.yaml"), [(None, file.clone())]);
        assert_eq!(
            one("python -m accelerate.commands.launch --config_file a/f.yaml --num_processes 4 src/train.py ./examples/ascend/qwen3_5moe_lora_sft_fsdp2.yaml"),
            [(Some(4), file.clone())]
        );
        assert_eq!(one("accelerate launch -m axolotl.cli.train examples/ascend/qwen3_5moe_lora_sft_fsdp2.yaml"), [(None, None)]);
        assert_eq!(one("accelerate launch --config_file a/f.yaml src/train.py examples/ascend/qwen3_full_sft_fsdp2.yaml"), [], "another config");
        assert_eq!(one("accelerate launch --config_file a/f.yaml src/train.py"), [], "no config named");
        let late = "stage: sft\n# accelerate launch --config_file a/f.yaml src/train.py examples/ascend/qwen3_5moe_lora_sft_fsdp2.yaml\n";
        assert!(header_launches(late, config).is_empty(), "only the leading comment block");
    }

    #[test]
    fn only_shell_fences_of_a_readme_are_launch_lines_and_lines_keep_their_numbers() {
        let readme = "# Recipe\n\n```python\ntorch.distributed.run()\n```\n\n~~~bash\ntorchrun --nproc_per_node 8 train.py \\\n  --config a.yaml\n~~~\n\n```console\n$ accelerate launch --num_processes 2 \\\n    train.py --config b.yaml\nStarting…\n$ echo done\n```\n";
        let shell = markdown_shell(readme);
        assert_eq!(shell.lines().count(), readme.lines().count(), "every line kept, blanked or not");
        let lines: Vec<&str> = shell.lines().collect();
        assert_eq!(lines[3], "", "the python block is not shell");
        assert_eq!((lines[7], lines[8]), ("torchrun --nproc_per_node 8 train.py \\", "  --config a.yaml"));
        assert_eq!(
            (lines[12], lines[13], lines[14], lines[15]),
            ("accelerate launch --num_processes 2 \\", "    train.py --config b.yaml", "", "echo done"),
            "a console block: prompts and their continuations, not output"
        );
    }
}
