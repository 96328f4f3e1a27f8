//! Training flags of a shell script. With the manifest's `[shell]`, a script is this dialect
//! and its flags are bound as `[shell.flags]` says. Without it, a script whose launch line's
//! flags show a framework is read as that framework (`resolve::script`); one that launches a
//! training program or exports settings, with no framework in its flags, is this dialect.

use super::{Doc, Dialect, Framework};
use crate::schema::{Manifest, Role};

pub(crate) const SHELL: Dialect = Dialect(&Shell);

pub(crate) struct Shell;

/// Why a shell script is this dialect.
pub(crate) fn reason(command: Option<&str>) -> String {
    format!("a shell script: the flags of `{}`", command.unwrap_or("the first command with `--` flags"))
}

impl Framework for Shell {
    fn name(&self) -> &'static str {
        "shell"
    }

    fn title(&self) -> &'static str {
        "shell script"
    }

    fn doc(&self) -> Doc {
        Doc {
            evidence: "a launch script (`.sh`, `.bash`, `.slurm`, `.sbatch`) whose flags show no framework, or any script with `[shell]` in the manifest",
            roles: "`[shell.flags]`",
            semantics: "flags of the training command",
        }
    }

    fn pseudo(&self) -> bool {
        true
    }

    /// `[shell.flags]`: `--batch-size` binds the role to `batch_size`.
    fn bindings(&self, manifest: &Manifest) -> Vec<(Role, String)> {
        manifest.shell.iter().flat_map(|s| s.flags.iter().map(|(flag, role)| (*role, flag.trim_start_matches('-').replace('-', "_")))).collect()
    }
}
