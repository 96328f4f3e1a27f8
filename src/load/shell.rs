//! Training flags in shell scripts (`python -m aam.cli pretrain --batch-size 8
//! --gradient-accumulation-steps 16`), read without running anything.
//!
//! Lines joined at `\` continuations are split into words with sh quoting
//! (single quotes, double quotes, backslashes); each word keeps its byte span.
//! `NAME=value` assignments earlier in the script (also after `export`) are
//! substituted into `$NAME` / `${NAME}`, and a value that came from a variable
//! points at the assignment, where a fix edits it. The flags of one command —
//! the first whose words start with the manifest's `[shell] command`, else the
//! first with flags — become a mapping: `--batch-size 8` and `--batch-size=8`
//! give `batch_size: 8`, a flag without a value gives `true`.

use super::LoadError;
use super::scalar::type_plain_scalar;
use super::tree::{Entry, Node, ScalarStyle, Value};
use crate::source::Span;
use std::collections::HashMap;

#[derive(Clone, Debug)]
struct Word {
    text: String,
    span: Span,
    quoted: Option<ScalarStyle>,
    /// For a word that is exactly one `$VAR`: where the variable's value is written.
    from_variable: Option<(Span, Option<ScalarStyle>)>,
}

pub fn parse(text: &str, command: Option<&str>) -> Result<Node, LoadError> {
    let mut variables: HashMap<String, (String, Span, Option<ScalarStyle>)> = HashMap::new();
    let mut chosen: Option<Vec<Word>> = None;
    // The process environment the script sets: `export NAME=value`, and `NAME=value cmd`
    // prefixes; each a `NAME=value` string spanning the assignment (the ENV rules read it).
    let mut environment: Vec<Node> = Vec::new();
    for words in commands(text)? {
        let exported = words.first().is_some_and(|w| w.text == "export");
        let prefixes = words.iter().skip_while(|w| w.text == "export").take_while(|w| is_assignment(&w.text)).count();
        let prefixes_a_command = words.iter().skip_while(|w| w.text == "export").nth(prefixes).is_some();
        if exported || prefixes_a_command {
            for word in words.iter().skip_while(|w| w.text == "export").take(prefixes) {
                environment.push(Node {
                    value: Value::Str(word.text.clone()),
                    span: word.span.clone(),
                    alias: None,
                    style: Some(ScalarStyle::Plain),
                    origin: 0,
                });
            }
        }
        // `NAME=value` (optionally after `export`) defines a variable for later lines.
        let assignments: Vec<&Word> = words.iter().skip_while(|w| w.text == "export").take_while(|w| is_assignment(&w.text)).collect();
        let rest: Vec<Word> = words.iter().skip_while(|w| w.text == "export").skip(assignments.len()).cloned().collect();
        for word in &assignments {
            let (name, value) = word.text.split_once('=').unwrap_or_default();
            let offset = word.span.start + name.len() + 1;
            variables.insert(name.to_owned(), (value.to_owned(), offset..word.span.end, word.quoted));
        }
        if rest.is_empty() || chosen.is_some() {
            continue;
        }
        let substituted: Vec<Word> = rest.into_iter().map(|w| substitute(w, &variables)).collect();
        let program: Vec<&str> = substituted.iter().take_while(|w| !w.text.starts_with("--")).map(|w| w.text.as_str()).collect();
        let has_flags = substituted.iter().any(|w| w.text.starts_with("--"));
        let matches = match command {
            Some(prefix) => program.join(" ").contains(prefix.trim()),
            None => has_flags,
        };
        if matches {
            chosen = Some(substituted);
        }
    }
    let words = chosen.unwrap_or_default();
    let mut entries: Vec<Entry> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        let Some(flag) = word.text.strip_prefix("--").filter(|f| !f.is_empty()) else {
            i += 1;
            continue;
        };
        let (name, value_node, consumed) = match flag.split_once('=') {
            Some((name, value)) => {
                let start = word.span.end - value.len();
                (name.to_owned(), scalar(value, start..word.span.end, word.quoted.map(|_| ScalarStyle::Plain), None), 1)
            }
            None => match words.get(i + 1).filter(|next| !next.text.starts_with("--")) {
                Some(next) => (flag.to_owned(), scalar(&next.text, next.span.clone(), next.quoted, next.from_variable.clone()), 2),
                None => (flag.to_owned(), Node { value: Value::Bool(true), span: word.span.clone(), alias: None, style: None, origin: 0 }, 1),
            },
        };
        let key = name.replace('-', "_");
        let key_span = word.span.start..word.span.start + 2 + name.len();
        if let Some(existing) = entries.iter_mut().find(|e| e.key == key) {
            existing.value = value_node;
        } else {
            entries.push(Entry { key, key_span, key_origin: 0, value: value_node });
        }
        i += consumed;
    }
    if !environment.is_empty() && !entries.iter().any(|e| e.key == "env") {
        let span = environment[0].span.start..environment[environment.len() - 1].span.end;
        entries.push(Entry { key: "env".into(), key_span: span.start..span.start, key_origin: 0, value: Node::new(Value::Seq(environment), span) });
    }
    Ok(Node::new(Value::Map(entries), 0..text.len()))
}

fn scalar(text: &str, span: Span, quoted: Option<ScalarStyle>, from_variable: Option<(Span, Option<ScalarStyle>)>) -> Node {
    let (span, quoted) = from_variable.unwrap_or((span, quoted));
    let value = match quoted {
        Some(ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted) => match type_plain_scalar(text) {
            // A quoted number is still a number to argparse.
            typed @ (Value::Int(_) | Value::Float(_)) => typed,
            _ => Value::Str(text.to_owned()),
        },
        _ => type_plain_scalar(text),
    };
    Node { value, span, alias: None, style: Some(quoted.unwrap_or(ScalarStyle::Plain)), origin: 0 }
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

fn substitute(mut word: Word, variables: &HashMap<String, (String, Span, Option<ScalarStyle>)>) -> Word {
    let name = word.text.strip_prefix("${").and_then(|r| r.strip_suffix('}')).or_else(|| word.text.strip_prefix('$'));
    if let Some((value, span, quoted)) = name.and_then(|n| variables.get(n)) {
        word.from_variable = Some((span.clone(), *quoted));
        word.text = value.clone();
    }
    word
}

/// Splits the script into commands (one per logical line, `;`, `&&`, `|`),
/// each a list of words with spans. Comments and heredoc-free scripts only.
fn commands(text: &str) -> Result<Vec<Vec<Word>>, LoadError> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut words: Vec<Word> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\\' if bytes.get(i + 1) == Some(&b'\n') => i += 2,
            b' ' | b'\t' | b'\r' => i += 1,
            b'\n' | b';' | b'|' | b'&' => {
                if !words.is_empty() {
                    out.push(std::mem::take(&mut words));
                }
                i += 1;
            }
            b'#' if words.is_empty() || bytes.get(i.wrapping_sub(1)).is_some_and(|b| b.is_ascii_whitespace()) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {
                let start = i;
                let mut textual = String::new();
                let mut quoted = None;
                while i < bytes.len() && !matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r' | b';' | b'|' | b'&') {
                    match bytes[i] {
                        b'\'' => {
                            let close =
                                text[i + 1..].find('\'').ok_or_else(|| LoadError::Syntax { message: "unterminated single quote".into(), span: i..i + 1 })?;
                            textual.push_str(&text[i + 1..i + 1 + close]);
                            quoted = Some(ScalarStyle::SingleQuoted);
                            i += close + 2;
                        }
                        b'"' => {
                            let mut j = i + 1;
                            while j < bytes.len() && bytes[j] != b'"' {
                                if bytes[j] == b'\\' && j + 1 < bytes.len() {
                                    textual.push(bytes[j + 1] as char);
                                    j += 2;
                                } else {
                                    let ch = text[j..].chars().next().unwrap_or(' ');
                                    textual.push(ch);
                                    j += ch.len_utf8();
                                }
                            }
                            if j >= bytes.len() {
                                return Err(LoadError::Syntax { message: "unterminated double quote".into(), span: i..i + 1 });
                            }
                            quoted = Some(ScalarStyle::DoubleQuoted);
                            i = j + 1;
                        }
                        b'\\' if bytes.get(i + 1) == Some(&b'\n') => break,
                        b'\\' if i + 1 < bytes.len() => {
                            textual.push(bytes[i + 1] as char);
                            i += 2;
                        }
                        _ => {
                            let ch = text[i..].chars().next().unwrap_or(' ');
                            textual.push(ch);
                            i += ch.len_utf8();
                        }
                    }
                }
                // The value span of a quoted word is inside its quotes' outer bounds: a
                // fix that keeps the quotes replaces the whole word.
                words.push(Word { text: textual, span: start..i, quoted, from_variable: None });
            }
        }
    }
    if !words.is_empty() {
        out.push(words);
    }
    Ok(out)
}

/// One launch line of a script: the data-parallel processes it starts (when the
/// script says), why, and the configs it passes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// 1-based line of the launch command.
    pub line: usize,
    /// The number of processes the launch starts; `None` when the script leaves it
    /// to the machine (`--nproc_per_node gpu`, a hostfile, an unset variable).
    pub world: Option<u64>,
    /// How the world was counted, or why it is unknown (`#SBATCH --nodes=2 × --gpus-per-node=8`).
    pub what: String,
    /// `accelerate launch --config_file F` without `--num_processes`: F says the world.
    pub accelerate_config: Option<String>,
    /// Config files the command passes (`--config x.yaml`, `--deepspeed ds.json`,
    /// a positional `.yaml`), as written; Hydra's `--config-path`/`--config-name` joined.
    pub configs: Vec<String>,
    /// The script the launcher runs (`train.py`), where Hydra's `--config-path` starts.
    pub script: Option<String>,
    /// Hydra overrides on the command line (`trainer.devices=8`, `+x=y`), in order.
    pub overrides: Vec<(String, String)>,
}

/// `#SBATCH` header values: torchrun under `srun` runs once per node.
#[derive(Clone, Debug, Default)]
struct Sbatch {
    nodes: Option<(u64, String)>,
    gpus_per_node: Option<(u64, String)>,
    tasks_per_node: Option<(u64, String)>,
}

/// Reads `#SBATCH` headers: `--nodes=N` / `-N N`, `--gpus-per-node=N` (also
/// `type:N`), `--gres=gpu:N` / `gpu:a100:N`, `--ntasks-per-node=N` (SLURM's
/// sbatch manual, <https://slurm.schedmd.com/sbatch.html>). A range `--nodes=2-4`
/// is unknown.
fn sbatch(text: &str) -> Sbatch {
    let mut out = Sbatch::default();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_prefix("#SBATCH") else { continue };
        let words: Vec<&str> = rest.split_whitespace().take_while(|w| !w.starts_with('#')).collect();
        let mut i = 0;
        while i < words.len() {
            let (flag, value, step) = match words[i].split_once('=') {
                Some((f, v)) => (f, Some(v), 1),
                None if words[i].starts_with("-N") && words[i].len() > 2 => ("-N", Some(&words[i][2..]), 1),
                None => (words[i], words.get(i + 1).copied(), 2),
            };
            let count = |v: &str| v.rsplit(':').next().and_then(|n| n.parse::<u64>().ok());
            match (flag, value) {
                ("--nodes" | "-N", Some(v)) => out.nodes = v.parse().ok().map(|n| (n, format!("{flag}={v}"))),
                ("--gpus-per-node", Some(v)) => out.gpus_per_node = count(v).map(|n| (n, format!("--gpus-per-node={v}"))),
                ("--gres", Some(v)) if v.starts_with("gpu") => out.gpus_per_node = count(v).map(|n| (n, format!("--gres={v}"))),
                ("--ntasks-per-node", Some(v)) => out.tasks_per_node = v.parse().ok().map(|n| (n, format!("--ntasks-per-node={v}"))),
                _ => {}
            }
            i += step;
        }
    }
    out
}

/// `${NAME:-default}` with `NAME` unset when linting (a positional parameter, or a
/// variable the script never assigns): the default, and a note that it was used.
fn expand(word: &str, variables: &HashMap<String, (String, Vec<String>)>, sb: &Sbatch, notes: &mut Vec<String>) -> Option<String> {
    if word.contains("$(") || word.contains('`') {
        return None;
    }
    let mut out = String::new();
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, default, len) = if let Some(inner) = after.strip_prefix('{') {
            let close = inner.find('}')?;
            let body = &inner[..close];
            match body.split_once(":-").or_else(|| body.split_once('-')) {
                Some((n, d)) => (n, Some(d), close + 2),
                None => (body, None, close + 2),
            }
        } else {
            let n = after.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(after.len());
            let n = if after.starts_with(|c: char| c.is_ascii_digit()) { 1 } else { n };
            (&after[..n], None, n)
        };
        // SLURM sets these from the job's allocation (sbatch's "OUTPUT ENVIRONMENT VARIABLES").
        let slurm = match name {
            "SLURM_NNODES" | "SLURM_JOB_NUM_NODES" => sb.nodes.as_ref(),
            "SLURM_GPUS_ON_NODE" | "SLURM_GPUS_PER_NODE" => sb.gpus_per_node.as_ref(),
            "SLURM_NTASKS_PER_NODE" => sb.tasks_per_node.as_ref(),
            _ => None,
        };
        let value = match (variables.get(name), slurm, default) {
            (Some((v, why)), _, _) => {
                // How the variable's own value was read (`GPUS=${GPUS:-4}`).
                notes.extend(why.iter().filter(|n| !notes.contains(n)).cloned().collect::<Vec<_>>());
                v.clone()
            }
            (None, Some((v, written)), _) => {
                notes.push(format!("${name} = {v} from #SBATCH {written}"));
                v.to_string()
            }
            (None, None, Some(d)) => {
                let what = if name.starts_with(|c: char| c.is_ascii_digit()) {
                    "a positional parameter, unset when linting"
                } else {
                    "not set by the script; the environment is never read"
                };
                notes.push(format!("${{{name}:-{d}}} read as {d} (${name} is {what})"));
                d.to_owned()
            }
            (None, None, None) => return None,
        };
        out.push_str(&value);
        rest = &after[len..];
    }
    out.push_str(rest);
    Some(out)
}

fn is_config_path(word: &str) -> bool {
    [".yaml", ".yml", ".json", ".toml"].iter().any(|e| word.ends_with(e)) && !word.contains('=')
}

/// The launch lines of a script, read without running anything: `torchrun` /
/// `python -m torch.distributed.run|launch`, `accelerate launch`, `deepspeed`,
/// `mpirun`/`srun` under `#SBATCH`, and frameworks' `--devices`/`--num_nodes`.
/// Each flag is documented at `world_of`.
pub fn launches(text: &str) -> Vec<Launch> {
    let sb = sbatch(text);
    let mut variables: HashMap<String, (String, Vec<String>)> = HashMap::new();
    let mut out = Vec::new();
    let Ok(commands) = commands(text) else { return out };
    for words in commands {
        let line = text[..words[0].span.start.min(text.len())].matches('\n').count() + 1;
        let mut notes = Vec::new();
        let start = words.iter().position(|w| w.text != "export" && !is_assignment(&w.text)).unwrap_or(words.len());
        for word in &words[..start] {
            if word.text == "export" {
                continue;
            }
            let (name, value) = word.text.split_once('=').unwrap_or_default();
            let mut why = Vec::new();
            match expand(value, &variables, &sb, &mut why) {
                Some(v) => variables.insert(name.to_owned(), (v, why)),
                None => variables.remove(name),
            };
        }
        let words: Vec<Option<String>> = words[start..].iter().map(|w| expand(&w.text, &variables, &sb, &mut notes)).collect();
        if words.is_empty() {
            continue;
        }
        if let Some(launch) = launch_of(&words, &sb, line, notes) {
            out.push(launch);
        }
    }
    out
}

/// Flag values: `--flag value`, `--flag=value`; `-` and `_` spell the same flag.
fn flag<'a>(words: &'a [Option<String>], names: &[&str]) -> Option<Option<&'a str>> {
    let norm = |s: &str| s.replace('_', "-");
    for (i, word) in words.iter().enumerate() {
        let Some(word) = word else { continue };
        let (name, inline) = match word.split_once('=') {
            Some((n, v)) if n.starts_with('-') => (n, Some(v)),
            _ => (word.as_str(), None),
        };
        if names.iter().any(|n| norm(n) == norm(name)) {
            return Some(match inline {
                Some(v) => Some(v),
                None => words.get(i + 1).and_then(|w| w.as_deref()).filter(|w| !w.starts_with('-')),
            });
        }
    }
    None
}

fn launch_of(words: &[Option<String>], sb: &Sbatch, line: usize, notes: Vec<String>) -> Option<Launch> {
    let text = |i: usize| words.get(i).and_then(|w| w.as_deref()).unwrap_or("");
    let base = |w: &str| w.rsplit('/').next().unwrap_or(w).to_owned();
    // Skip `srun [opts]`, `mpirun -np N`, `python -m`, to the launcher.
    let mut i = 0;
    let mut srun = false;
    let mut mpi: Option<u64> = None;
    while i < words.len() {
        match base(text(i)).as_str() {
            "srun" => {
                srun = true;
                i += 1;
                while text(i).starts_with('-') {
                    i += if text(i).contains('=') || !text(i).starts_with("--") && text(i).len() > 2 { 1 } else { 2 };
                }
            }
            "mpirun" | "mpiexec" => {
                let own: Vec<Option<String>> = words[i..].to_vec();
                mpi = flag(&own, &["-np", "-n", "--np"]).flatten().and_then(|v| v.parse().ok());
                i += 1;
                while text(i).starts_with('-') {
                    i += if text(i).contains('=') { 1 } else { 2 };
                }
            }
            "nohup" | "exec" | "time" | "env" => i += 1,
            _ => break,
        }
    }
    let rest = &words[i..];
    let first = base(text(i));
    let module = if first.starts_with("python") && text(i + 1) == "-m" { text(i + 2).to_owned() } else { String::new() };
    let kind = match (first.as_str(), module.as_str(), text(i + 1)) {
        ("torchrun", _, _) | (_, "torch.distributed.run" | "torch.distributed.launch", _) => "torchrun",
        ("accelerate", _, "launch") | (_, "accelerate.commands.launch", _) => "accelerate",
        // torchtune/_cli/run.py: `tune run [TORCHRUN-OPTIONS] <recipe> --config <config>`.
        ("tune", _, "run") => "tune",
        ("deepspeed", _, _) | (_, "deepspeed.launcher.runner", _) => "deepspeed",
        (p, _, _) if p.starts_with("python") || p == "litgpt" || p.ends_with(".py") => "program",
        _ => return None,
    };
    // The launcher's own flags come before the training script (`train.py`, or `-m module`).
    let skip = match (kind, module.is_empty()) {
        ("program", _) => 0,
        (_, false) => 3,
        ("accelerate" | "tune", true) => 2,
        _ => 1,
    };
    let script_at = if kind == "tune" {
        tune_recipe_at(rest, skip)
    } else {
        rest.iter().skip(skip).position(|w| w.as_deref().is_some_and(|w| w.ends_with(".py") || w == "-m")).map(|at| at + skip)
    };
    let (own, program): (&[Option<String>], &[Option<String>]) = match (kind, script_at) {
        ("program", _) => (&[], rest),
        (_, Some(at)) => (&rest[..at], &rest[at..]),
        (_, None) => (rest, &[]),
    };
    let num = |v: Option<Option<&str>>| v.flatten().and_then(|s| s.parse::<u64>().ok());
    let mut accelerate_config = None;
    let (world, what): (Option<u64>, String) = match kind {
        // torchtune/_cli/run.py: with no torchrun option before the recipe, `tune run` runs the
        // recipe in this process (`_run_single_device`): one process.
        "tune" if own.len() == skip => (Some(1), "tune run without torchrun options (one process)".into()),
        // torch/distributed/run.py: `--nproc_per_node` (also `--nproc-per-node`) default "1"; "gpu"/"auto"
        // count the machine's devices. `--nnodes` default "1:1"; "MIN:MAX" is elastic. `--standalone`: one node.
        // `tune run` hands its torchrun options to torchrun (`_run_distributed`).
        "torchrun" | "tune" => {
            let nproc = flag(own, &["--nproc_per_node", "--nproc-per-node"]);
            let nnodes = flag(own, &["--nnodes"]).flatten();
            let nodes: Result<(u64, String), String> = match nnodes {
                _ if flag(own, &["--standalone"]).is_some() => Ok((1, "--standalone".into())),
                None if srun => sb.nodes.clone().map(|(n, w)| (n, format!("#SBATCH {w}"))).ok_or_else(|| "srun without #SBATCH --nodes".to_owned()),
                None => Ok((1, "one node".into())),
                Some(v) => match v.split_once(':') {
                    Some((a, b)) if a == b => a.parse().map(|n| (n, format!("--nnodes={v}"))).map_err(|_| format!("--nnodes={v}")),
                    Some(_) => Err(format!("--nnodes={v} is elastic")),
                    None => v.parse().map(|n| (n, format!("--nnodes={v}"))).map_err(|_| format!("--nnodes={v}")),
                },
            };
            let procs: Result<(u64, String), String> = match nproc {
                None => Ok((1, "--nproc_per_node default 1".into())),
                Some(Some(v)) => v.parse().map(|n| (n, format!("--nproc_per_node={v}"))).map_err(|_| format!("--nproc_per_node={v} counts the machine's GPUs")),
                Some(None) => Err("--nproc_per_node without a value".into()),
            };
            match (nodes, procs) {
                (Ok((n, nw)), Ok((p, pw))) => (n.checked_mul(p), format!("{} {nw} × {pw}", launcher_name(kind))),
                (Err(e), _) | (_, Err(e)) => (None, format!("{}: {e}", launcher_name(kind))),
            }
        }
        // accelerate/commands/launch.py: `--num_processes` is the total over all machines;
        // `--config_file` holds `num_processes` when the flag is absent.
        "accelerate" => match num(flag(own, &["--num_processes", "--num-processes"])) {
            Some(n) => (Some(n), format!("accelerate launch --num_processes={n}")),
            None => {
                accelerate_config = flag(own, &["--config_file", "--config-file"]).flatten().map(str::to_owned);
                (None, "accelerate launch without --num_processes".into())
            }
        },
        // deepspeed/launcher/runner.py: `--num_gpus`/`--num_nodes` (-1: every one), `--include host:0,1,2`,
        // `--hostfile` (default /job/hostfile: the machines decide).
        "deepspeed" => {
            let gpus = num(flag(own, &["--num_gpus", "--num-gpus"]));
            let nodes = num(flag(own, &["--num_nodes", "--num-nodes"]));
            let include = flag(own, &["--include", "-i"]).flatten();
            let hostfile = flag(own, &["--hostfile", "-H"]).is_some();
            // `NODE_SPEC[@NODE_SPEC…]`, `NODE_SPEC = NAME[:SLOT[,SLOT…]]`; a node without slots is all of its GPUs.
            let slots =
                include.and_then(|spec| spec.split('@').map(|node| node.split_once(':').map(|(_, s)| s.split(',').count() as u64)).sum::<Option<u64>>());
            match (gpus, nodes, slots) {
                (_, _, Some(count)) => (Some(count), format!("deepspeed --include {}", include.unwrap_or_default())),
                (Some(g), Some(n), _) => (g.checked_mul(n), format!("deepspeed --num_gpus={g} × --num_nodes={n}")),
                // Without `--hostfile` the runner starts this machine only (its default, /job/hostfile, assumed absent).
                (Some(g), None, _) if !hostfile => {
                    (Some(g), format!("deepspeed --num_gpus={g} on one node (no --hostfile; the default /job/hostfile assumed absent)"))
                }
                _ => (None, "deepspeed: the hostfile or the machine decides the GPUs".into()),
            }
        }
        _ => {
            // srun/mpirun start one process per task; a framework CLI counts its own devices.
            // jsonargparse (litgpt, LightningCLI): a flag after `--config` overrides the file's value.
            let devices = num(flag(program, &["--devices", "--trainer.devices", "--gpus"]));
            let nodes = num(flag(program, &["--num_nodes", "--num-nodes", "--trainer.num_nodes"]));
            match (mpi, srun, devices) {
                (Some(n), _, _) => (Some(n), format!("mpirun -np {n}")),
                (None, _, Some(d)) => (d.checked_mul(nodes.unwrap_or(1)), format!("--devices {d} × --num_nodes {}", nodes.unwrap_or(1))),
                (None, true, None) => match (&sb.nodes, &sb.tasks_per_node) {
                    (Some((n, nw)), Some((t, tw))) => (n.checked_mul(*t), format!("srun: #SBATCH {nw} × {tw}")),
                    _ => (None, "srun without #SBATCH --nodes and --ntasks-per-node".into()),
                },
                _ => return single(program, line, notes),
            }
        }
    };
    let mut launch = single(program, line, notes)?;
    launch.world = world;
    launch.what = format!("{what}{}", launch.what);
    launch.accelerate_config = accelerate_config;
    Some(launch)
}

fn launcher_name(kind: &str) -> &'static str {
    if kind == "tune" { "tune run" } else { "torchrun" }
}

/// Where `tune run`'s recipe is: the first word after the torchrun options (they take a
/// value, `--opt=value`, or are one of torchrun's switches).
fn tune_recipe_at(rest: &[Option<String>], skip: usize) -> Option<usize> {
    // torch/distributed/run.py `get_args_parser`: the options that take no value.
    const SWITCHES: &[&str] = &["--standalone", "--no-python", "--no_python", "--run-path", "--run_path", "--module", "-m"];
    let mut i = skip;
    while let Some(word) = rest.get(i) {
        let word = word.as_deref()?;
        if !word.starts_with('-') {
            return Some(i);
        }
        i += if word.contains('=') || SWITCHES.contains(&word) { 1 } else { 2 };
    }
    None
}

/// The configs and Hydra overrides of the training command; its world unknown.
fn single(program: &[Option<String>], line: usize, notes: Vec<String>) -> Option<Launch> {
    let mut configs = Vec::new();
    let mut overrides = Vec::new();
    let script = program.iter().flatten().find(|w| w.ends_with(".py")).cloned();
    let (mut path, mut name) = (None, None);
    let mut i = 0;
    while i < program.len() {
        let Some(word) = &program[i] else {
            i += 1;
            continue;
        };
        let next = program.get(i + 1).and_then(|w| w.clone());
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_owned())),
            _ => (word.as_str(), None),
        };
        let value = inline.clone().or(next);
        let step = if inline.is_some() { 1 } else { 2 };
        match flag {
            "--config" | "--config_file" | "--config-file" | "--deepspeed" | "-c" => {
                configs.extend(value);
                i += step;
            }
            "--config-path" | "--config_path" | "-cp" => {
                path = value;
                i += step;
            }
            "--config-name" | "--config_name" | "-cn" => {
                name = value;
                i += step;
            }
            "--devices" | "--num_nodes" | "--num-nodes" | "--trainer.devices" | "--trainer.num_nodes" | "--trainer.num-nodes" => {
                if let Some(value) = value {
                    overrides.push((flag.trim_start_matches('-').replace('-', "_"), value));
                }
                i += step;
            }
            f if f.starts_with('-') => i += 1,
            w if is_config_path(w) => {
                configs.push(w.to_owned());
                i += 1;
            }
            w => {
                // Hydra: `key=value`, `+key=value`, `++key=value` (`~key` deletes: ignored).
                if let Some((key, value)) = w.split_once('=')
                    && !key.is_empty()
                    && key.trim_start_matches('+').chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/'))
                {
                    overrides.push((key.trim_start_matches('+').to_owned(), value.to_owned()));
                }
                i += 1;
            }
        }
    }
    if let Some(name) = name {
        let name = if name.ends_with(".yaml") { name } else { format!("{name}.yaml") };
        configs.push(match path {
            Some(p) => format!("{}/{name}", p.trim_end_matches('/')),
            None => name,
        });
    }
    if configs.is_empty() && overrides.is_empty() {
        return None;
    }
    let what = if notes.is_empty() { String::new() } else { format!("; {}", notes.join("; ")) };
    Some(Launch { line, world: None, what, accelerate_config: None, configs, script, overrides })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aam_style_flags_with_continuations_quotes_and_variables() {
        let text = "#!/bin/bash\nBATCH=2\nexport PYTORCH_ALLOC_CONF=expandable_segments:True\npython -m aam.cli pretrain \\\n  --batch-size $BATCH \\\n  --gradient-accumulation-steps=16 \\\n  --token-limit \"1024\" \\\n  --use-expandable-segments\n";
        let root = parse(text, Some("python -m aam.cli pretrain")).unwrap();
        let batch = root.get("batch_size").unwrap();
        assert_eq!(batch.value, Value::Int(2));
        assert_eq!(&text[batch.span.clone()], "2", "a value from a variable points at the assignment");
        let accumulation = root.get("gradient_accumulation_steps").unwrap();
        assert_eq!(accumulation.value, Value::Int(16));
        assert_eq!(&text[accumulation.span.clone()], "16");
        let tokens = root.get("token_limit").unwrap();
        assert_eq!(tokens.value, Value::Int(1024));
        assert_eq!(&text[tokens.span.clone()], "\"1024\"");
        assert_eq!(root.get("use_expandable_segments").unwrap().value, Value::Bool(true));
        assert_eq!(&text[root.entry("token_limit").unwrap().key_span.clone()], "--token-limit");
    }

    fn one(text: &str) -> Launch {
        let all = launches(text);
        assert_eq!(all.len(), 1, "{all:?}");
        all.into_iter().next().unwrap()
    }

    #[test]
    fn torchrun_spellings() {
        let l = one("python -m torch.distributed.run --nnodes=2 --nproc-per-node=4 train.py --config cfg.yaml\n");
        assert_eq!((l.world, l.configs.clone()), (Some(8), vec!["cfg.yaml".to_owned()]));
        assert_eq!(one("python -m torch.distributed.launch --nproc_per_node 2 train.py c.yaml\n").world, Some(2));
        assert_eq!(one("torchrun --nnodes 1:4 --nproc_per_node 8 train.py --config=c.yaml\n").world, None, "elastic range");
        assert_eq!(one("torchrun --nnodes 2:2 --nproc_per_node 8 train.py --config=c.yaml\n").world, Some(16));
        assert_eq!(one("torchrun --nproc_per_node auto train.py --config c.yaml\n").world, None);
        assert_eq!(one("torchrun train.py --config c.yaml\n").world, Some(1), "torchrun's default nproc_per_node is 1");
    }

    #[test]
    fn slurm_headers_defaults_and_variables() {
        let sbatch = "#!/bin/bash\n#SBATCH -N 4\n#SBATCH --gres=gpu:a100:8\n#SBATCH --ntasks-per-node=8\nsrun python train.py --config conf/a.yaml\n";
        let l = one(sbatch);
        assert_eq!(l.world, Some(32));
        assert!(l.what.contains("#SBATCH -N=4 × --ntasks-per-node=8"), "{}", l.what);
        let l = one("NPROC=${1:-2}\nGPUS=$NPROC\ntorchrun --nproc_per_node ${GPUS} train.py --config c.yaml\n");
        assert_eq!(l.world, Some(2));
        let l = one("torchrun --nproc_per_node ${1:-4} train.py --config c.yaml\n");
        assert_eq!(l.world, Some(4));
        assert!(l.what.contains("${1:-4} read as 4 ($1 is a positional parameter, unset when linting)"), "{}", l.what);
        assert_eq!(one("N=$(nvidia-smi -L | wc -l)\ntorchrun --nproc_per_node $N train.py --config c.yaml\n").world, None, "never executed");
        assert_eq!(one("mpirun -np 16 python train.py --config c.yaml\n").world, Some(16));
    }

    #[test]
    fn configs_and_overrides_a_command_passes() {
        let l = one("python train.py -cp conf -cn exp/big trainer.devices=8 +trainer.num_nodes=2 ~logger\n");
        assert_eq!(l.configs, vec!["conf/exp/big.yaml".to_owned()]);
        assert_eq!(l.overrides, vec![("trainer.devices".to_owned(), "8".to_owned()), ("trainer.num_nodes".to_owned(), "2".to_owned())]);
        let l = one("accelerate launch --multi_gpu --num_processes=8 --num_machines 1 train.py --config_file run.yaml\n");
        assert_eq!((l.world, l.configs.clone()), (Some(8), vec!["run.yaml".to_owned()]));
        assert!(launches("echo done\ncd /tmp\n").is_empty());
    }

    #[test]
    fn deepspeed_counts() {
        assert_eq!(one("deepspeed --include localhost:0,1@worker-1:0,1,2 train.py --deepspeed ds.json\n").world, Some(5));
        assert_eq!(one("deepspeed --include worker-1 train.py --deepspeed ds.json\n").world, None, "a node without slots is all its GPUs");
        assert_eq!(one("deepspeed --num_gpus 8 train.py --deepspeed ds.json\n").world, Some(8));
        assert_eq!(one("deepspeed --hostfile hosts --num_gpus 8 train.py --deepspeed ds.json\n").world, None, "every host of the hostfile");
        assert_eq!(one("deepspeed --hostfile hosts --num_nodes 2 --num_gpus 8 train.py --deepspeed ds.json\n").world, Some(16));
    }

    #[test]
    fn unterminated_quotes_are_errors() {
        assert!(parse("python train.py --name 'x\n", None).is_err());
    }
}
