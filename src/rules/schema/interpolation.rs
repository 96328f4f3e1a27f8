use super::interpolation_error::InterpolationError;
use super::unresolved_value::UnresolvedValue;
use crate::diagnostic::Diagnostic;
use crate::resolve::ResolvedConfig;
use crate::resolve::interpolate::Unresolved;
use crate::rules::{Checker, Registered};

pub fn check(checker: &mut Checker, resolved: &ResolvedConfig, loader: &crate::load::Loader) {
    // A file of a Hydra config tree (a primary with a defaults list, or a group
    // option) gets the keys it interpolates from the composed config.
    let has_missing_key = resolved.unresolved.iter().any(|i| matches!(i.problem, Unresolved::MissingKey(_)));
    let composed_later = has_missing_key
        && (resolved.detection.dialect.composed_by_hydra()
            || resolved.tree.get("defaults").is_some()
            || crate::resolve::hydra::primary_config_of_group_option(loader, resolved.source().path()).is_some()
            || crate::resolve::hydra::primary_config_above(loader, resolved.source().path()).is_some());
    // One missing node, one error: the references to keys under the same
    // missing node (`${model.encoder.d_model}`, `${model.encoder.n_layers}`,
    // and every value that interpolates those values) are one root cause.
    let is_error = |key: &str| !(key.starts_with("hydra.") || key == "hydra" || composed_later);
    // Grouped across the files of a composition: a group option's `${model.encoder.x}` has the same root cause.
    let mut roots: std::collections::BTreeMap<String, Vec<&crate::resolve::interpolate::Issue>> = std::collections::BTreeMap::new();
    for issue in &resolved.unresolved {
        if let Unresolved::MissingKey(key) = &issue.problem
            && is_error(key)
        {
            roots.entry(missing_node(&resolved.tree, key)).or_default().push(issue);
        }
    }
    for issue in &resolved.unresolved {
        let Some(file) = resolved.files.get(issue.origin) else { continue };
        let mut same_root: &[&crate::resolve::interpolate::Issue] = &[];
        let mut root_node = String::new();
        if let Unresolved::MissingKey(key) = &issue.problem
            && is_error(key)
        {
            root_node = missing_node(&resolved.tree, key);
            let group = &roots[&root_node];
            // The value that names the missing key itself, not one that reaches it through another value.
            let direct = |i: &&&crate::resolve::interpolate::Issue| {
                let Unresolved::MissingKey(own) = &i.problem else { return false };
                resolved.files.get(i.origin).and_then(|f| f.text().get(i.span.clone())).is_some_and(|t| t.contains(own.as_str()))
            };
            let first = group.iter().min_by_key(|i| (!direct(i), i.origin, i.span.start, i.span.end)).expect("a group has its issue");
            if !std::ptr::eq(*first, issue) {
                continue;
            }
            same_root = group;
        }
        let (rule, message, note, help) = match &issue.problem {
            Unresolved::MissingKey(key) if key.starts_with("hydra.") || key == "hydra" => (
                UnresolvedValue.id(),
                format!("`{}` interpolates Hydra's runtime value `{key}`", issue.path),
                "Hydra sets it when the job starts".to_owned(),
                "nothing to do; it is known only at run time".to_owned(),
            ),
            Unresolved::MissingKey(key) if composed_later => (
                UnresolvedValue.id(),
                format!("`{}` interpolates `{key}`, which this file does not define: it comes from the composed Hydra config", issue.path),
                "the value is resolved when Hydra composes the config".to_owned(),
                "check the primary config, whose composition defines it".to_owned(),
            ),
            Unresolved::MissingKey(key) => (
                InterpolationError.id(),
                format!("`{}` interpolates `{key}`, which does not exist", issue.path),
                "OmegaConf raises InterpolationKeyError when the value is read".to_owned(),
                "correct the key, give it a value, or pass it as an override at launch".to_owned(),
            ),
            Unresolved::Incomplete(key) => (
                UnresolvedValue.id(),
                format!("`{}` interpolates `{key}`, which the failed composition did not provide", issue.path),
                "the composition of this config failed (SCH007)".to_owned(),
                "fix the defaults list first".to_owned(),
            ),
            Unresolved::Cycle(paths) => (
                InterpolationError.id(),
                format!("interpolation cycle: {}", paths.join(" → ")),
                "OmegaConf cannot resolve a value that depends on itself".to_owned(),
                "break the cycle with a literal value".to_owned(),
            ),
            Unresolved::Syntax(why) => (
                InterpolationError.id(),
                format!("`{}`: {why}", issue.path),
                "OmegaConf's grammar rejects it".to_owned(),
                "close every `${` with `}`; write a literal `$` as `\\${`".to_owned(),
            ),
            Unresolved::TooDeep(limit) => (
                InterpolationError.id(),
                format!("`{}`: interpolations nested deeper than {limit} levels", issue.path),
                "trainlint resolves at most this many levels (`${` inside `${`, or a value naming a value that names another); no real config comes near it".to_owned(),
                "write the value out, or shorten the chain of interpolations".to_owned(),
            ),
            Unresolved::ChainTooLong(limit) => (
                InterpolationError.id(),
                format!("`{}`: a chain of more than {limit} values naming values", issue.path),
                "trainlint follows at most this many values that name another (`a: ${b}`, `b: ${c}`, ...); every value of a longer chain fails the same way, so values from here on that reach the limit are left unresolved without a finding each".to_owned(),
                "write the value out, or shorten the chain of interpolations".to_owned(),
            ),
            Unresolved::Budget(exceeded) => (
                InterpolationError.id(),
                format!("`{}`: interpolations expand to {exceeded}", issue.path),
                "each `${...}` copies the value it names, so values that repeat each other grow exponentially and exhaust memory; the budget is shared with YAML aliases, and values from here on are left unresolved".to_owned(),
                "write the repeated values out, or reduce how often interpolations repeat each other".to_owned(),
            ),
            Unresolved::Missing => (
                UnresolvedValue.id(),
                format!("`{}` is `???`: a value to give at launch", issue.path),
                "checks that need it are not made".to_owned(),
                "give the value (in the config or as an override in the manifest) to have it checked".to_owned(),
            ),
            Unresolved::Environment(var) => (
                UnresolvedValue.id(),
                format!("`{}` comes from the environment variable `{var}`, which trainlint does not read", issue.path),
                "environment values are never read or printed".to_owned(),
                "add a default (`${oc.env:VAR,default}`) to have the value checked".to_owned(),
            ),
            Unresolved::Resolver(name) => (
                UnresolvedValue.id(),
                format!("`{}` uses the resolver `{name}`, which trainlint does not run", issue.path),
                "nothing from a config is executed".to_owned(),
                "write the value out to have it checked".to_owned(),
            ),
        };
        let (message, note) = if same_root.len() > 1 {
            let others: Vec<&&crate::resolve::interpolate::Issue> = same_root.iter().filter(|i| !std::ptr::eq(**i, issue)).collect();
            let mut paths: Vec<String> = others.iter().take(MAX_LISTED).map(|i| format!("`{}`", i.path)).collect();
            if others.len() > MAX_LISTED {
                paths.push(format!("and {} more", others.len() - MAX_LISTED));
            }
            (
                format!(
                    "{message}; `{root_node}` is missing, and {} more {}",
                    others.len(),
                    if others.len() == 1 { "value interpolates it" } else { "values interpolate it" }
                ),
                format!("{note}; one missing key, reported once: {} also depend{} on it", paths.join(", "), if others.len() == 1 { "s" } else { "" }),
            )
        } else {
            (message, note)
        };
        let mut diagnostic = Diagnostic::new(rule, file, issue.span.clone(), message).with_label("not resolved").with_note(note).with_help(help);
        for other in same_root.iter().filter(|i| !std::ptr::eq(**i, issue)).take(MAX_LISTED) {
            if let Some(other_file) = resolved.files.get(other.origin) {
                diagnostic = diagnostic.with_secondary(other_file, other.span.clone(), format!("`{}` depends on it too", other.path));
            }
        }
        diagnostic.stage = resolved.stage.clone();
        checker.report(diagnostic);
    }
}

/// The other references to one missing node that an error names (as labels and in its note).
const MAX_LISTED: usize = 10;

/// The shortest prefix of `key` that the tree lacks: `model.encoder` for
/// `model.encoder.d_model` when `model` exists and has no `encoder`.
fn missing_node(tree: &crate::load::Node, key: &str) -> String {
    let mut prefix = String::new();
    for part in key.split('.') {
        if !prefix.is_empty() {
            prefix.push('.');
        }
        prefix.push_str(part);
        if tree.get_dotted(&prefix).is_none() {
            return prefix;
        }
    }
    key.to_owned()
}
