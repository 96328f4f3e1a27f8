//! Where a fix writes a role's new value.
//!
//! A value is edited where it is defined: in the stage file for a curriculum
//! stage (inserting the key there when the stage does not set it yet, so the
//! base and the other stages keep theirs), else in the file the value came
//! from. A value that came through an alias, sits in a flow collection, or
//! lies outside the stage's package cannot be edited unambiguously: `None`,
//! and the fix becomes display-only.

use crate::diagnostic::{Applicability, Edit, Fix};
use crate::load::yaml_edit;
use crate::load::{Format, parse_text};
use crate::resolve::{ResolvedConfig, RoleValue};
use crate::schema::Role;
use std::sync::Arc;

pub(crate) fn set_role(resolved: &ResolvedConfig, role: Role, value: u64) -> Option<Edit> {
    let written = resolved.role(role);
    // The key the role was read from (a dialect's derived path, such as
    // `training.trainer.accumulate_grad_batches`, or the manifest's binding),
    // else the binding a missing role would be read from.
    let path = match written {
        Some(written) => written.path.clone(),
        None => resolved.bindings.iter().find(|(r, _)| *r == role).map(|(_, p)| p.clone())?,
    };
    let value = value.to_string();
    if resolved.stage.is_some() {
        let stage_file = resolved.files.last()?;
        if let Some(written) = written.filter(|w| w.file.path() == stage_file.path()) {
            return edit_where_written(resolved, written, &value);
        }
        let relative = match &resolved.stage_package {
            Some(package) => path.strip_prefix(&format!("{package}."))?.to_owned(),
            None => path,
        };
        let (root, _) = parse_text(stage_file.text(), Format::from_path(stage_file.path()).unwrap_or(Format::Yaml)).ok()?;
        return yaml_edit::set(stage_file, &root, &relative, &value);
    }
    match written {
        Some(written) => edit_where_written(resolved, written, &value),
        None => {
            let file = resolved.source();
            let (root, _) = parse_text(file.text(), Format::from_path(file.path()).unwrap_or(Format::Yaml)).ok()?;
            // Beside the keys its siblings were read from: a nested Lightning
            // trainer (`training.trainer.devices`) gets `training.trainer.accumulate_grad_batches`.
            let path = beside_siblings(resolved, &path).unwrap_or(path);
            // A missing key is inserted only under a mapping the file already
            // has (or at its top level): a new `trainer:` beside a nested
            // `training.trainer` would be read by trainlint, not by the program.
            if let Some((parent, _)) = path.rsplit_once('.')
                && root.get_dotted(parent).is_none_or(|p| p.entries().is_none())
            {
                return None;
            }
            yaml_edit::set(file, &root, &path, &value)
        }
    }
}

/// Where a missing role's key goes when the roles bound beside it (the same
/// parent in the dialect's table) were read under a prefix in the config
/// itself: `trainer.accumulate_grad_batches` becomes
/// `training.trainer.accumulate_grad_batches` when `trainer.devices` was read
/// from `training.trainer.devices`.
fn beside_siblings(resolved: &ResolvedConfig, path: &str) -> Option<String> {
    let (parent, _) = path.rsplit_once('.')?;
    resolved.bindings.iter().filter(|(_, bound)| bound.rsplit_once('.').is_some_and(|(p, _)| p == parent)).find_map(|(role, bound)| {
        let read = resolved.role(*role).filter(|r| r.file.path() == resolved.source().path())?;
        let prefix = read.path.strip_suffix(bound.as_str()).filter(|p| p.ends_with('.'))?;
        Some(format!("{prefix}{path}"))
    })
}

/// An edit of the scalar a role's value was read from: its file and span,
/// through Hydra composition, interpolation (the definition) and a
/// DeepSpeed `"auto"` filled from the paired file. A value set by an
/// override, reached through an alias, or not written as read (a derived
/// value) is not edited: `None`.
fn edit_where_written(resolved: &ResolvedConfig, written: &RoleValue, value: &str) -> Option<Edit> {
    if written.from_override {
        return None;
    }
    // The composed tree knows whether the value came through an alias.
    if let Some(entry) = resolved.tree.entry_dotted(&written.path)
        && entry.value.span == written.span
        && entry.value.alias.is_some()
    {
        return None;
    }
    yaml_edit::replace_at(&written.file, &written.span, &written.value, value)
}

/// A fix that sets several roles; display-only when one of them cannot be written.
pub(crate) fn set_roles(resolved: &ResolvedConfig, values: &[(Role, u64)], applicability: Applicability, message: String) -> Fix {
    let edits: Option<Vec<Edit>> = values.iter().map(|(role, value)| set_role(resolved, *role, *value)).collect();
    match edits {
        Some(edits) => {
            // Two insertions at one point would collide: join them into one edit.
            Fix { applicability, message, edits: merge_insertions(edits) }
        }
        None => Fix {
            applicability: Applicability::DisplayOnly,
            message: format!("{message} (by hand: the value cannot be edited in place unambiguously)"),
            edits: Vec::new(),
        },
    }
}

fn merge_insertions(edits: Vec<Edit>) -> Vec<Edit> {
    let mut out: Vec<Edit> = Vec::new();
    for edit in edits {
        match out.iter_mut().find(|e| Arc::ptr_eq(&e.file, &edit.file) && e.span.is_empty() && edit.span.is_empty() && e.span.start == edit.span.start) {
            Some(existing) => existing.content = merge_blocks(&existing.content, &edit.content),
            None => out.push(edit),
        }
    }
    out
}

/// Two inserted blocks at the same point (`batch:\n  micro_batch: 15\n` and
/// `batch:\n  accumulation: 15\n`): one block with both keys.
fn merge_blocks(first: &str, second: &str) -> String {
    let mut lines: Vec<&str> = first.lines().collect();
    for line in second.lines() {
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    if first.starts_with('\n') && !text.starts_with('\n') {
        text.insert(0, '\n');
    }
    text
}
