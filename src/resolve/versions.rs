//! The version of a framework a project trains with, for migrations that
//! depend on it (MIG001 only applies from Lightning 2.0), decided as ruff
//! decides its `target-version`: stated in the manifest first
//! (`[frameworks] lightning = "2.2"`, as ruff's `target-version`), else read
//! from the project's own files (as ruff reads `requires-python`).
//!
//! The files, in each folder from the config's up to the project's root
//! (the manifest's folder or the folder holding `.git`), nearest first:
//! lock files (`uv.lock`, `poetry.lock`: the exact version installed), then
//! declared requirements (`pyproject.toml`'s `[project]` dependencies,
//! optional dependencies and `[dependency-groups]`, Poetry's
//! `[tool.poetry.dependencies]` and groups; `requirements*.txt`; `setup.cfg`;
//! `environment.yml`). The first declaration that settles the question a rule
//! asks wins; every file is read through the run's `Loader`, so a baseline
//! revision reads them as they were.

use crate::dialects::{BatchSemantics, Dialect};
use crate::schema::version::{Version, VersionRange};
use crate::settings::Settings;
use std::path::{Path, PathBuf};

/// One statement of a framework's version.
#[derive(Clone, Debug, PartialEq)]
pub struct Declared {
    pub range: VersionRange,
    /// Where it was read, for messages: `uv.lock`, `requirements.txt` (`lightning>=2.0`), the manifest.
    pub source: String,
}

/// The project's answer to "is `framework` at least `version`?": `Some(true)`
/// or `Some(false)` with the declaration that settles it, or `None` with the
/// declarations that do not settle it (empty: the project states no version).
pub(crate) fn at_least(settings: &Settings, framework: Dialect, config: &Path, version: &Version) -> Result<(bool, Declared), Vec<Declared>> {
    at_least_of(settings, framework.name(), framework.distributions(), config, version)
}

/// `at_least` for a library that is no dialect of its own (`trl`, whose trainers the HF dialect
/// reads): `name` is its `[frameworks]` key, `distributions` its names on PyPI.
pub(crate) fn at_least_of(
    settings: &Settings,
    name: &str,
    distributions: &[&str],
    config: &Path,
    version: &Version,
) -> Result<(bool, Declared), Vec<Declared>> {
    let mut undecided = Vec::new();
    for declared in declarations_of(settings, name, distributions, config) {
        match declared.range.at_least(version) {
            Some(answer) => return Ok((answer, declared)),
            None => undecided.push(declared),
        }
    }
    Err(undecided)
}

/// litgpt's division of the global batch changed in 0.5.8 (commit 3eb93c8d, "Fix: incorrect
/// gradient accumulation steps bug (#1947)", first in tag v0.5.8): `TrainArgs.batch_size(devices,
/// num_nodes)` is `global_batch_size // (devices * num_nodes)`, where 0.5.7 and every release
/// before it (lit-gpt's scripts too) computed `global_batch_size // devices`
/// (`litgpt/args.py`; the scripts called `train.gradient_accumulation_iters(devices)`).
const LITGPT_DIVIDES_BY_NODES: [u64; 3] = [0, 5, 8];

/// The batch semantics of `dialect` for the config at `config`, as the project's version of the
/// framework has them (issue 25: versions are read where they are written), and, where releases
/// differ on this config, a sentence for the batch findings' notes saying which release's
/// semantics were used and why. One place for every version-dependent batch semantics: today
/// litgpt's division on more than one node (`nodes`, the config's `num_nodes`).
pub(crate) fn batch_semantics(settings: &Settings, dialect: Dialect, config: &Path, nodes: Option<u64>) -> (BatchSemantics, Option<String>) {
    let semantics = dialect.batch();
    let Some(nodes) = nodes.filter(|n| *n > 1) else { return (semantics, None) };
    if dialect.name() != crate::dialects::litgpt::LITGPT.name() || !semantics.accumulation_floors {
        return (semantics, None);
    }
    let per_node = BatchSemantics { accumulation_per_node: true, ..semantics };
    let old = "releases before 0.5.8 divide it by `devices` only (`TrainArgs.batch_size(devices)`)";
    match at_least(settings, dialect, config, &Version::new(&LITGPT_DIVIDES_BY_NODES)) {
        Ok((true, _)) => (semantics, None),
        Ok((false, declared)) => (
            per_node,
            Some(format!(
                "{} states litgpt before 0.5.8, which divides the global batch by `devices` only, not by devices × num_nodes ({nodes} nodes): `litgpt/args.py` `TrainArgs.batch_size(devices)`; 0.5.8 divides by both",
                declared.source
            )),
        ),
        Err(undecided) => {
            let why = match undecided.first() {
                None => "the project states no litgpt version".to_owned(),
                Some(declared) => format!("{} allows releases before and after 0.5.8", declared.source),
            };
            (
                semantics,
                Some(format!(
                    "litgpt 0.5.8's division was assumed, global batch ÷ (devices × num_nodes) (`litgpt/args.py` `TrainArgs.batch_size`), as in the latest release: {why}; {old}, which on {nodes} nodes trains {nodes} × the global batch (`[frameworks] litgpt = \"…\"` or a pin states it)"
                )),
            )
        }
    }
}

/// `declarations` by `[frameworks]` key and distribution names.
fn declarations_of(settings: &Settings, name: &str, distributions: &[&str], config: &Path) -> Vec<Declared> {
    let mut found = Vec::new();
    if let Some(version) = settings.manifest.frameworks.get(name)
        && let Ok(parsed) = version.parse::<Version>()
    {
        let manifest = settings.manifest_path.as_deref().and_then(Path::file_name).map_or("the manifest".to_owned(), |n| n.to_string_lossy().into_owned());
        found.push(Declared { range: VersionRange::exact(parsed), source: format!("{manifest} `[frameworks] {name} = \"{version}\"`") });
    }
    if distributions.is_empty() {
        return found;
    }
    let loader = &settings.loader;
    // A LightningCLI config says which Lightning wrote it: `LightningCLI.init_parser` sets
    // jsonargparse's `dump_header` to `lightning.pytorch=={version}` (lightning
    // `src/lightning/pytorch/cli.py`), the first line of every `--print_config` and
    // `SaveConfigCallback` file (`# lightning.pytorch==2.0.6`; Lightning 1.x wrote
    // `# pytorch_lightning==1.9.0`). The config's own statement comes before the folders'.
    // Read once per config and run (MIG003 asks once per removed argument).
    if distributions.iter().any(|d| *d == "lightning" || *d == "pytorch-lightning")
        && let Some((line, version)) =
            loader.memo("lightning-header", config, || loader.read_text(config).ok().and_then(|text| lightning_header(&text))).as_ref().clone()
    {
        found.push(Declared { range: VersionRange::exact(version), source: format!("{}:{line} (LightningCLI's header comment)", display(settings, config)) });
    }
    let root = loader.canonical(&settings.root);
    let start = config.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Some(start) = loader.canonical(start) else { return found };
    for dir in start.ancestors().take(64) {
        // Nothing outside the project is read (the Loader would refuse it);
        // at a revision, whose tree has no `.git`, this is where the walk ends.
        if !loader.is_inside_project(dir) {
            break;
        }
        let key = dir.join(name);
        let here = loader.memo("framework-versions", &key, || in_folder(settings, distributions, dir));
        found.extend(here.iter().cloned());
        let is_root = root.as_deref() == Some(dir) || loader.is_dir(&dir.join(".git")) || loader.is_file(&dir.join(".git"));
        if is_root {
            break;
        }
    }
    found
}

/// The version a LightningCLI dump header names, and its line: a leading comment line
/// `# lightning.pytorch==V` (also `lightning==V`, `pytorch_lightning==V`) before the first key.
fn lightning_header(text: &str) -> Option<(usize, Version)> {
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let comment = line.strip_prefix('#')?.trim();
        for prefix in ["lightning.pytorch==", "pytorch_lightning==", "lightning=="] {
            if let Some(version) = comment.strip_prefix(prefix)
                && let Ok(version) = version.trim().parse::<Version>()
            {
                return Some((index + 1, version));
            }
        }
    }
    None
}

/// The declarations of one folder's files, in the order of the module doc.
fn in_folder(settings: &Settings, names: &[&str], dir: &Path) -> Vec<Declared> {
    let loader = &settings.loader;
    let read = |name: &str| -> Option<(PathBuf, String)> {
        let path = dir.join(name);
        if !loader.is_file(&path) {
            return None;
        }
        loader.read_text(&path).ok().map(|text| (path, text))
    };
    let shown = |path: &Path| display(settings, path);
    let mut found = Vec::new();
    for lock in ["uv.lock", "poetry.lock"] {
        if let Some((path, text)) = read(lock)
            && let Some(version) = locked_version(&text, names)
        {
            found.push(Declared { range: VersionRange::exact(version), source: shown(&path) });
        }
    }
    if let Some((path, text)) = read("pyproject.toml") {
        for (requirement, range) in pyproject_requirements(&text, names) {
            found.push(Declared { range, source: format!("{} (`{requirement}`)", shown(&path)) });
        }
    }
    let mut line_files: Vec<String> = loader
        .list(dir)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| !e.is_dir && e.name.starts_with("requirements") && e.name.ends_with(".txt"))
        .map(|e| e.name)
        .collect();
    line_files.extend(["setup.cfg", "environment.yml", "environment.yaml"].map(str::to_owned));
    // `setup.py`: its string literals that are requirements (`install_requires=["transformers==4.35.0"]`,
    // or a `_deps = [...]` table as alignment-handbook and open-r1 keep theirs). Read as text, never run.
    if let Some((path, text)) = read("setup.py") {
        for literal in string_literals(&text) {
            if let Some((distribution, range)) = requirement(literal)
                && names.contains(&distribution.as_str())
            {
                found.push(Declared { range, source: format!("{} (`{literal}`)", shown(&path)) });
            }
        }
    }
    for name in &line_files {
        if let Some((path, text)) = read(name) {
            for line in text.lines() {
                if let Some((distribution, range)) = requirement(line)
                    && names.contains(&distribution.as_str())
                {
                    found.push(Declared { range, source: format!("{} (`{}`)", shown(&path), line.trim()) });
                }
            }
        }
    }
    found
}

/// The one-line string literals of Python source (`"…"` and `'…'`, no escapes inside), in order;
/// comments are skipped.
fn string_literals(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut rest = line;
        while let Some(at) = rest.find(['"', '\'', '#']) {
            let quote = rest.as_bytes()[at];
            if quote == b'#' {
                break;
            }
            let body = &rest[at + 1..];
            let Some(end) = body.find(quote as char) else { break };
            out.push(&body[..end]);
            rest = &body[end + 1..];
        }
    }
    out
}

fn display(settings: &Settings, path: &Path) -> String {
    let root = settings.loader.canonical(&settings.root);
    let relative = root.as_deref().and_then(|root| path.strip_prefix(root).ok()).unwrap_or(path);
    relative.display().to_string()
}

/// A lock file's `[[package]]` entry for one of `names` (uv.lock and poetry.lock share the shape).
fn locked_version(text: &str, names: &[&str]) -> Option<Version> {
    let table: toml::Table = text.parse().ok()?;
    table.get("package")?.as_array()?.iter().find_map(|package| {
        let name = normalise(package.get("name")?.as_str()?);
        if !names.contains(&name.as_str()) {
            return None;
        }
        package.get("version")?.as_str()?.parse().ok()
    })
}

fn strings(value: Option<&toml::Value>) -> Vec<&str> {
    value.and_then(|v| v.as_array()).into_iter().flatten().filter_map(|v| v.as_str()).collect()
}

/// The requirements of `names` in a pyproject.toml, as written and as a range.
fn pyproject_requirements(text: &str, names: &[&str]) -> Vec<(String, VersionRange)> {
    let Ok(table) = text.parse::<toml::Table>() else { return Vec::new() };
    let mut pep508: Vec<&str> = Vec::new();
    let project = table.get("project");
    pep508.extend(strings(project.and_then(|p| p.get("dependencies"))));
    for group in [project.and_then(|p| p.get("optional-dependencies")), table.get("dependency-groups")].into_iter().flatten() {
        for (_, list) in group.as_table().into_iter().flatten() {
            pep508.extend(strings(Some(list)));
        }
    }
    let mut found: Vec<(String, VersionRange)> = pep508
        .into_iter()
        .filter_map(|line| requirement(line).filter(|(name, _)| names.contains(&name.as_str())).map(|(_, range)| (line.to_owned(), range)))
        .collect();
    // Poetry: `lightning = "^2.1"` or `lightning = { version = "^2.1", ... }`.
    let poetry = table.get("tool").and_then(|t| t.get("poetry"));
    let mut tables = vec![poetry.and_then(|p| p.get("dependencies"))];
    if let Some(groups) = poetry.and_then(|p| p.get("group")).and_then(|g| g.as_table()) {
        tables.extend(groups.values().map(|g| g.get("dependencies")));
    }
    for (name, spec) in tables.into_iter().flatten().filter_map(|t| t.as_table()).flatten() {
        if !names.contains(&normalise(name).as_str()) {
            continue;
        }
        let spec = spec.as_str().or_else(|| spec.get("version").and_then(|v| v.as_str()));
        if let Some(spec) = spec {
            found.push((format!("{name} = \"{spec}\""), VersionRange::parse(spec)));
        }
    }
    found
}

/// A requirement line (PEP 508 `name[extra] spec ; marker`, conda's
/// `channel::name=2.2=build` or `name 2.2.*`, a YAML list item `- name==2.2`,
/// setup.cfg's `install_requires = name>=2`): the normalised distribution name
/// and the versions it allows. `None` for a line that is not one.
fn requirement(line: &str) -> Option<(String, VersionRange)> {
    let line = line.split(" #").next().unwrap_or(line).trim();
    let line = line.strip_prefix("install_requires").map_or(line, |rest| rest.trim_start().strip_prefix('=').unwrap_or(rest)).trim();
    let line = line.strip_prefix("- ").unwrap_or(line).trim().trim_matches(['"', '\'']);
    let line = line.rsplit("::").next().unwrap_or(line);
    let name_len = line.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))).unwrap_or(line.len());
    if name_len == 0 || line.starts_with(['-', '.', '#']) {
        return None;
    }
    let (name, rest) = line.split_at(name_len);
    let mut rest = rest.trim_start();
    if let Some(after) = rest.strip_prefix('[') {
        rest = after.split_once(']').map_or("", |(_, r)| r).trim_start();
    }
    let rest = rest.split(';').next().unwrap_or("").trim();
    let rest = rest.trim_start_matches('(').trim_end_matches(')');
    if !(rest.is_empty() || rest.starts_with(['=', '<', '>', '~', '!', '^', '@']) || rest.starts_with(|c: char| c.is_ascii_digit())) {
        return None;
    }
    let range = if rest.starts_with('@') {
        VersionRange::default()
    } else if let Some(conda) = rest.strip_prefix('=').filter(|r| !r.starts_with('=')) {
        // conda: `=2.2=py_0` (version, then build string).
        VersionRange::parse(&format!("={}", conda.split('=').next().unwrap_or("")))
    } else if rest.starts_with(|c: char| c.is_ascii_digit()) {
        // conda: `name 2.2.*` (a space, then the version).
        VersionRange::parse(&format!("=={rest}"))
    } else {
        VersionRange::parse(rest)
    };
    Some((normalise(name), range))
}

/// PEP 503 name normalisation: lower case, runs of `-`, `_`, `.` become `-`.
fn normalise(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if matches!(c, '-' | '_' | '.') {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_lightning_cli_header_names_the_version() {
        let header = |text: &str| super::lightning_header(text).map(|(line, v)| (line, v.to_string()));
        assert_eq!(header("# lightning.pytorch==2.0.6\nseed_everything: 0\n"), Some((1, "2.0.6".into())));
        assert_eq!(header("\n# pytorch_lightning==1.9.0\ntrainer: {}\n"), Some((2, "1.9.0".into())));
        // A post release is its release for the rules (`Version` keeps the numbers).
        assert_eq!(header("# lightning.pytorch==2.5.0.post0\n"), Some((1, "2.5.0".into())));
        // Only before the first key, and only the header's form.
        assert_eq!(header("trainer: {}\n# lightning.pytorch==2.0.6\n"), None);
        assert_eq!(header("# needs lightning>=2.0\ntrainer: {}\n"), None);
    }

    use super::*;

    fn two() -> Version {
        Version::new(&[2, 0])
    }

    #[test]
    fn requirement_lines() {
        let ge2 = |line: &str| requirement(line).and_then(|(name, range)| (name == "lightning" || name == "pytorch-lightning").then(|| range.at_least(&two())));
        assert_eq!(ge2("lightning>=2.0"), Some(Some(true)));
        assert_eq!(ge2("pytorch_lightning==1.9.5  # pinned"), Some(Some(false)));
        assert_eq!(ge2("PyTorch-Lightning[extra] ~= 2.1 ; python_version >= '3.8'"), Some(Some(true)));
        assert_eq!(ge2("  - lightning=2.2=py_0"), Some(Some(true)));
        assert_eq!(ge2("  - conda-forge::pytorch-lightning=1.9"), Some(Some(false)));
        assert_eq!(ge2("lightning 2.1.*"), Some(Some(true)));
        assert_eq!(ge2("install_requires = lightning<2"), Some(Some(false)));
        assert_eq!(ge2("lightning"), Some(None));
        assert_eq!(ge2("lightning @ git+https://github.com/Lightning-AI/pytorch-lightning"), Some(None));
        assert_eq!(ge2("lightning is what we train with"), None);
        assert_eq!(ge2("-r base.txt"), None);
        assert_eq!(ge2("torch>=2.1"), None);
    }

    #[test]
    fn pyproject_and_locks() {
        let names = &["lightning", "pytorch-lightning"];
        let pyproject =
            "[project]\nname = \"x\"\ndependencies = [\"torch\", \"lightning>=2.1\"]\n[tool.poetry.dependencies]\npytorch-lightning = { version = \"^1.9\" }\n";
        let found = pyproject_requirements(pyproject, names);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].1.at_least(&two()), Some(true));
        assert_eq!(found[1].0, "pytorch-lightning = \"^1.9\"");
        assert_eq!(found[1].1.at_least(&two()), Some(false));
        let lock = "version = 1\n[[package]]\nname = \"torch\"\nversion = \"2.3.0\"\n[[package]]\nname = \"pytorch-lightning\"\nversion = \"1.9.5\"\n";
        assert_eq!(locked_version(lock, names), Some(Version::new(&[1, 9, 5])));
        assert_eq!(locked_version("not toml [", names), None);
    }
}
