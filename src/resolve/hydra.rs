//! What trainlint knows of Hydra so far: whether a file is an option of a
//! config group. Composition itself (defaults lists, interpolation) is not
//! implemented yet.

use crate::load::{self, Format, Value};
use std::path::{Path, PathBuf};

/// The primary config whose `defaults:` list names the group `path` belongs to
/// (`configs/callbacks/none.yaml` is an option of group `callbacks` when
/// `configs/train.yaml` lists `- callbacks: ...`). Hydra reads an empty option
/// file as "nothing", so such a file is not an error.
pub fn primary_config_of_group_option(path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    let mut group = absolute.parent()?;
    let mut group_name = group.file_name()?.to_str()?.to_owned();
    // Nested groups (`configs/model/encoder/x.yaml`) are named `model/encoder`.
    for _ in 0..4 {
        let search_dir = group.parent()?;
        if let Some(primary) = primary_listing(search_dir, &group_name) {
            return Some(primary);
        }
        group_name = format!("{}/{group_name}", search_dir.file_name()?.to_str()?);
        group = search_dir;
    }
    None
}

fn primary_listing(dir: &Path, group: &str) -> Option<PathBuf> {
    let entries = std::fs::read_dir(dir).ok()?;
    for entry in entries.flatten() {
        let path = entry.path();
        if Format::from_path(&path) != Some(Format::Yaml) || !path.is_file() {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        if !text.contains("defaults") {
            continue;
        }
        let Ok((root, _)) = load::parse_text(&text, Format::Yaml) else { continue };
        let Some(Value::Seq(items)) = root.get("defaults").map(|n| &n.value) else { continue };
        let lists_group = items.iter().any(|item| {
            item.entries().is_some_and(|entries| {
                entries.iter().any(|e| {
                    let key = e.key.trim_start_matches("override ").trim_start_matches("optional ");
                    key.split('@').next() == Some(group)
                })
            })
        });
        if lists_group {
            return Some(path);
        }
    }
    None
}

/// A primary config (a YAML file with a `defaults` list) in one of the three
/// folders above `path`: the file belongs to that Hydra config tree.
pub fn primary_config_above(path: &Path) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    let mut dir = absolute.parent()?.parent();
    for _ in 0..3 {
        let current = dir?;
        for entry in std::fs::read_dir(current).ok()?.flatten() {
            let candidate = entry.path();
            if Format::from_path(&candidate) != Some(Format::Yaml) || !candidate.is_file() {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&candidate) else { continue };
            if !text.contains("defaults:") {
                continue;
            }
            if let Ok((root, _)) = load::parse_text(&text, Format::Yaml)
                && matches!(root.get("defaults").map(|d| &d.value), Some(Value::Seq(_)))
            {
                return Some(candidate);
            }
        }
        dir = current.parent();
    }
    None
}
