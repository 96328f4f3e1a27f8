use super::rename_key;
use crate::declare_rule;
use crate::diagnostic::{Applicability, Diagnostic, Edit, Fix};
use crate::load::{Document, Node, Value};
use crate::resolve::versions;
use crate::rules::Checker;
use crate::schema::version::Version;
use crate::settings::Settings;
use std::sync::Arc;

declare_rule! {
    /// ## What it does
    /// Migrates `PYTORCH_CUDA_ALLOC_CONF` (and `PYTORCH_HIP_ALLOC_CONF`) to
    /// `PYTORCH_ALLOC_CONF` where a config sets environment variables: a
    /// mapping key, or a `NAME=value` string.
    ///
    /// ## Why is this bad?
    /// PyTorch 2.9 reads `PYTORCH_ALLOC_CONF` first and warns once that
    /// the device-specific names are deprecated ("PYTORCH_CUDA_ALLOC_CONF is
    /// deprecated, use PYTORCH_ALLOC_CONF instead": `c10/core/AllocatorConfig.cpp`,
    /// `AcceleratorAllocatorConfig::instance`, FACTS.md §5).
    ///
    /// ## Example
    /// ```yaml
    /// env:
    ///   PYTORCH_CUDA_ALLOC_CONF: expandable_segments:True
    /// ```
    ///
    /// Use instead:
    /// ```yaml
    /// env:
    ///   PYTORCH_ALLOC_CONF: expandable_segments:True
    /// ```
    ///
    /// ## Fix safety
    /// Unsafe: PyTorch releases that predate `PYTORCH_ALLOC_CONF` ignore it,
    /// so on them the setting would silently stop applying. The name first
    /// appears in PyTorch 2.9.0: its `libc10` holds `PYTORCH_ALLOC_CONF` and
    /// the deprecation warning (the device-agnostic `AcceleratorAllocatorConfig`,
    /// pytorch/pytorch#149601), 2.8.0's holds neither (its CUDA allocator
    /// reads `PYTORCH_CUDA_ALLOC_CONF` in `c10/cuda/CUDAAllocatorConfig`).
    /// A project whose requirement, lock or `setup.py` file pins `torch`
    /// (or conda's `pytorch`) below 2.9 gets no finding; a project that
    /// states no PyTorch version at all gets the finding as an info that
    /// says it assumes the latest release. pytorch/pytorch#183387 reports
    /// 2.9.1 ignoring `expandable_segments` under the new name on CUDA
    /// (2.11 honours it): check the setting after renaming.
    pub struct PytorchAllocConfName {
        name: "pytorch-alloc-conf-name",
        severity: Warning,
        fix: Always,
        since: "0.1.0",
        check: Migrations,
        options: ["frameworks"],
    }
}

const OLD: [&str; 2] = ["PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF"];

/// The PyPI and conda names of PyTorch, and its `[frameworks]` key.
pub(crate) const TORCH: (&str, &[&str]) = ("torch", &["torch", "pytorch"]);

/// The old names are deprecated, and `PYTORCH_ALLOC_CONF` read, from PyTorch 2.9.0
/// (`c10/core/AllocatorConfig.cpp`): a project whose files pin `torch` below it gets no finding
/// (its PyTorch would ignore the new name), one that states no version an info that says it
/// assumes the latest release (issue 25, `resolve::versions`).
pub fn check(checker: &mut Checker, document: &Document, root: &Node, settings: &Settings) {
    // Asked only when the file sets an old name: most files do not.
    let mut unstated = None;
    walk(checker, document, root, &mut || {
        *unstated.get_or_insert_with(|| {
            super::unstated_if_applies(versions::at_least_of(settings, TORCH.0, TORCH.1, document.source.path(), &Version::new(&[2, 9])))
        })
    });
}

/// `applies`: `None` (the project's PyTorch predates the new name: no finding), `Some(true)` (no
/// version stated: an info), `Some(false)` (a warning).
fn walk(checker: &mut Checker, document: &Document, node: &Node, applies: &mut dyn FnMut() -> Option<bool>) {
    match &node.value {
        Value::Map(entries) => {
            for entry in entries {
                if OLD.contains(&entry.key.as_str()) && node.entry("PYTORCH_ALLOC_CONF").is_none() {
                    if let Some(unstated) = applies() {
                        let edit = rename_key(document, entry, "PYTORCH_ALLOC_CONF");
                        checker.report(diagnostic(document, entry.key_span.clone(), &entry.key, edit, unstated));
                    }
                } else {
                    walk(checker, document, &entry.value, applies);
                }
            }
        }
        Value::Seq(items) => items.iter().for_each(|item| walk(checker, document, item, applies)),
        Value::Str(text) if node.alias.is_none() => {
            for old in OLD {
                if text.strip_prefix(old).is_some_and(|rest| rest.starts_with('=')) {
                    let raw = document.source.text().get(node.span.clone()).unwrap_or("");
                    if let Some(offset) = raw.find(old)
                        && let Some(unstated) = applies()
                    {
                        let start = node.span.start + offset;
                        let edit = Edit { file: Arc::clone(&document.source), span: start..start + old.len(), content: "PYTORCH_ALLOC_CONF".into() };
                        checker.report(diagnostic(document, start..start + old.len(), old, edit, unstated));
                    }
                }
            }
        }
        _ => {}
    }
}

fn diagnostic(document: &Document, span: std::ops::Range<usize>, old: &str, edit: Edit, unstated: bool) -> Diagnostic {
    let message = if unstated {
        format!("`{old}` is deprecated: PyTorch reads `PYTORCH_ALLOC_CONF` (assuming the latest PyTorch: the project states no PyTorch version)")
    } else {
        format!("`{old}` is deprecated: PyTorch reads `PYTORCH_ALLOC_CONF`")
    };
    let diagnostic = Diagnostic::new(PytorchAllocConfName, &document.source, span, message)
        .with_label("deprecated name")
        .with_note("PyTorch 2.9 and later warn that the device-specific variable is deprecated and read PYTORCH_ALLOC_CONF first; earlier releases ignore PYTORCH_ALLOC_CONF")
        .with_help("rename it to `PYTORCH_ALLOC_CONF` (on a PyTorch that reads it)")
        .with_fix(Fix { applicability: Applicability::Unsafe, message: format!("Rename `{old}` to `PYTORCH_ALLOC_CONF`"), edits: vec![edit] });
    if unstated { diagnostic.at_most(crate::diagnostic::Severity::Info) } else { diagnostic }
}
