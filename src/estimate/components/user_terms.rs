//! The manifest's and config's own memory terms: named expressions over config
//! values and roles (`micro_batch * settings.model.max_peaks * 4 B`).

use super::{Bytes, MemoryComponent, Run, Term};
use crate::estimate::{NotEstimable, expr};
use crate::load::Node;
use crate::resolve::ResolvedConfig;
use crate::schema::Role;

pub(crate) struct UserTerms;

impl MemoryComponent for UserTerms {
    fn certainty(&self) -> super::Certainty {
        super::Certainty::Declared
    }

    fn id(&self) -> &'static str {
        "user-terms"
    }

    fn source(&self) -> &'static str {
        "the manifest or config (`memory.terms`): the user's own arithmetic"
    }

    fn terms(&self, run: &Run, _notes: &mut Vec<String>) -> Result<Vec<Term>, NotEstimable> {
        let mut out = Vec::new();
        for term in &run.memory.terms {
            let parsed = expr::parse(&term.bytes).map_err(|e| NotEstimable::new(format!("memory term `{}`: {e}", term.name)))?;
            let names = parsed.names();
            let mut lookup = Vec::new();
            for name in names.iter().filter(|n| *n != "micro_batch") {
                let value = lookup_name(run.resolved, name)
                    .ok_or_else(|| NotEstimable::new(format!("memory term `{}`: `{name}` is not a number in the config", term.name)))?;
                lookup.push((name.clone(), value));
            }
            // A term that grows with the micro batch is activations (alive from the forward to
            // the backward); any other is alive the whole step.
            let live = if names.iter().any(|n| n == "micro_batch") { super::Live::Backward } else { super::Live::Always };
            // A term is memory taken: a negative one (`-1000 GiB`) would lower the peak and
            // make a MEM003 "fix" out of nothing. Checked at micro batch 1 with the config's values.
            let at_one = parsed.eval(&|n: &str| if n == "micro_batch" { Some(1.0) } else { lookup.iter().find(|(k, _)| k == n).map(|(_, v)| *v) });
            if let Ok(bytes) = at_one
                && !(bytes >= 0.0 && bytes.is_finite())
            {
                return Err(NotEstimable::new(format!(
                    "memory term `{}` is {bytes} bytes (`{}`): a memory term must be a finite number of bytes, zero or more",
                    term.name, term.bytes
                )));
            }
            out.push(Term {
                name: term.name.clone(),
                component: "",
                depends_on: names.join(", "),
                bytes: Bytes::Expression { expr: parsed, names, lookup },
                live,
            });
        }
        Ok(out)
    }
}

/// A name in a memory term: a role (`micro_batch`, `heads`) or a dotted path of the config.
fn lookup_name(resolved: &ResolvedConfig, name: &str) -> Option<f64> {
    if let Some(role) = Role::from_name(name) {
        if let Some(value) = resolved.role(role).and_then(|v| v.value.as_f64()) {
            return Some(value);
        }
        if role == Role::Accumulation {
            return resolved.batch.accumulation_steps().map(|a| a as f64);
        }
    }
    resolved.tree.get_dotted(name).and_then(Node::as_f64)
}
