//! The target tables the shell scripts share, read rather than copied:
//! `scripts/lib/linux-targets.sh` and `scripts/lib/windows-targets.sh`
//! stay the one place a target's toolchain, machine and directories are
//! written, and a step asks bash what they say for one target.

use std::collections::HashMap;

use crate::process::{command, output, Exit};

/// What the shell library `library` sets when `call` runs with the target
/// as `$1`: each named variable's value, and each element of the array
/// `array` (if any). A target the table lacks: the table's own message,
/// and exit status 2.
fn ask(
    library: &str,
    call: &str,
    target: &str,
    names: &[&str],
    array: Option<&str>,
) -> Result<Values, Exit> {
    let mut script = format!(". {library} && {{ {call}; }} || exit 2\n");
    for name in names {
        script.push_str(&format!("printf '%s=%s\\n' {name} \"${name}\"\n"));
    }
    if let Some(array) = array {
        script.push_str(&format!("printf 'array %s\\n' \"${{{array}[@]}}\"\n"));
    }
    let printed =
        output(command("bash").args(["-c", &script, "bash", target])).map_err(|_| Exit(2))?;
    let mut values = Values::default();
    for line in printed.lines() {
        if let Some(element) = line.strip_prefix("array ") {
            values.array.push(element.to_owned());
        } else if let Some((name, value)) = line.split_once('=') {
            values.scalars.insert(name.to_owned(), value.to_owned());
        }
    }
    Ok(values)
}

#[derive(Default)]
struct Values {
    scalars: HashMap<String, String>,
    array: Vec<String>,
}

impl Values {
    fn take(&mut self, name: &str) -> String {
        self.scalars.remove(name).unwrap_or_default()
    }
}

/// A Linux target of `scripts/lib/linux-targets.sh`.
pub struct LinuxTarget {
    /// The GNU triple: its tools are `GNU-gcc`, `GNU-readelf`, ...
    pub gnu: String,
    /// What `readelf -h` prints as the ELF machine.
    pub machine: String,
    /// Whether Debian ships the target's std prebuilt (else -Zbuild-std).
    pub prebuilt_std: bool,
    /// The target's own Cargo target directory.
    pub dir: String,
    /// The script that installs what the target needs.
    pub setup: String,
    /// `NAME=VALUE` words cargo needs to build for the target.
    pub cargo_env: Vec<(String, String)>,
}

pub fn linux(target: &str) -> Result<LinuxTarget, Exit> {
    let mut values = ask(
        "scripts/lib/linux-targets.sh",
        r#"linux_target "$1" && linux_target_cargo_env "$1""#,
        target,
        &["LT_GNU", "LT_MACHINE", "LT_STD", "LT_DIR", "LT_SETUP"],
        Some("LT_CARGO_ENV"),
    )?;
    let cargo_env = values
        .array
        .iter()
        .filter_map(|word| word.split_once('='))
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect();
    Ok(LinuxTarget {
        gnu: values.take("LT_GNU"),
        machine: values.take("LT_MACHINE"),
        prebuilt_std: values.take("LT_STD") == "prebuilt",
        dir: values.take("LT_DIR"),
        setup: values.take("LT_SETUP"),
        cargo_env,
    })
}

/// The mingw-w64 prefix of a Windows target of
/// `scripts/lib/windows-targets.sh` (`x86_64-w64-mingw32`: its gcc is
/// `x86_64-w64-mingw32-gcc`).
pub fn windows_mingw(target: &str) -> Result<String, Exit> {
    let mut values = ask(
        "scripts/lib/windows-targets.sh",
        r#"windows_target "$1""#,
        target,
        &["WT_MINGW"],
        None,
    )?;
    Ok(values.take("WT_MINGW"))
}
