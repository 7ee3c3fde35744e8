//! `tests-c/compile_all_headers.c` compiles warning-free against both our
//! header sets (as C11 and as C++11) and against the stock Debian headers,
//! and runs.
//!
//! That program pins every size, offset, constant value, macro result and
//! function type a program can observe to stock ENet 1.3.17's (with the
//! 1.3.18 identity's version and default MTU for `include/1.3.18`), so
//! this is where a generated header that drifts from stock in meaning fails.

use std::path::{Path, PathBuf};
use std::process::Command;

use gen_headers::{repository_root, Identity};

const SOURCE: &str = "tests-c/compile_all_headers.c";
const STRICT: [&str; 4] = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"];

/// The directory to put on the include path for `identity`'s header set
/// (the one holding its `enet/`).
fn include_dir(identity: Identity) -> PathBuf {
    let headers = repository_root().join(identity.header_dir());
    headers.parent().expect("enet/ has a parent").to_path_buf()
}

/// What tells compile_all_headers.c which identity's values to expect.
fn identity_define(identity: Identity) -> &'static [&'static str] {
    match identity {
        Identity::Enet1_3_17 => &[],
        Identity::Enet1_3_18 => &["-DEXPECT_IDENTITY_1_3_18"],
    }
}

fn compile(compiler: &str, language: &[&str], headers: Option<Identity>, output: &Path) {
    let root = repository_root();
    let mut command = Command::new(compiler);
    command.args(language).args(STRICT);
    if let Some(identity) = headers {
        command.args(identity_define(identity));
        command.arg("-I").arg(include_dir(identity));
    }
    command.arg(root.join(SOURCE)).arg("-o").arg(output);
    let result = command
        .output()
        .unwrap_or_else(|error| panic!("cannot run {compiler}: {error}"));
    assert!(
        result.status.success(),
        "{compiler} {language:?} (headers {headers:?}) failed:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
}

#[test]
fn compiles_against_our_headers_as_c11() {
    let dir = tempfile::tempdir().expect("temporary directory");
    for identity in Identity::ALL {
        compile(
            "gcc",
            &["-std=c11", "-c"],
            Some(identity),
            &dir.path().join("ours.o"),
        );
    }
}

#[test]
fn compiles_against_our_headers_as_cxx11() {
    let dir = tempfile::tempdir().expect("temporary directory");
    for identity in Identity::ALL {
        compile(
            "g++",
            &["-x", "c++", "-std=c++11", "-c"],
            Some(identity),
            &dir.path().join("ours-cxx.o"),
        );
    }
}

#[test]
fn the_1_3_18_set_fails_where_1_3_17_values_are_expected() {
    // The program's expectations do tell the sets apart: the 1.3.18 set
    // compiled without its define must fail on the version and the MTU.
    let dir = tempfile::tempdir().expect("temporary directory");
    let result = Command::new("gcc")
        .args(["-std=c11", "-c"])
        .args(STRICT)
        .arg("-I")
        .arg(include_dir(Identity::Enet1_3_18))
        .arg(repository_root().join(SOURCE))
        .arg("-o")
        .arg(dir.path().join("mismatch.o"))
        .output()
        .expect("gcc runs");
    let errors = String::from_utf8_lossy(&result.stderr);
    assert!(!result.status.success());
    assert!(
        errors.contains("ENET_VERSION_PATCH == EXPECTED_PATCH"),
        "{errors}"
    );
    assert!(
        errors.contains("ENET_HOST_DEFAULT_MTU == EXPECTED_DEFAULT_MTU"),
        "{errors}"
    );
}

#[test]
fn our_headers_alone_are_clean_as_c89_and_cxx98() {
    // The test program itself needs C11/C++11 (static assertions); this only
    // shows the headers alone are clean in the oldest dialects stock supports.
    let dir = tempfile::tempdir().expect("temporary directory");
    let probe = dir.path().join("probe.c");
    for identity in Identity::ALL {
        let patch = identity.release().rsplit('.').next().expect("x.y.z");
        std::fs::write(
            &probe,
            format!(
                "#include <enet/enet.h>\n#include <enet/time.h>\n#include <enet/utility.h>\n\
                 int main (void) {{ return ENET_VERSION == ENET_VERSION_CREATE (1, 3, {patch}) ? 0 : 1; }}\n"
            ),
        )
        .expect("probe written");
        probe_old_dialects(&probe, &include_dir(identity), dir.path());
    }
}

fn probe_old_dialects(probe: &Path, include: &Path, dir: &Path) {
    for (compiler, language) in [("gcc", "-std=c89"), ("g++", "-std=c++98")] {
        let mut command = Command::new(compiler);
        if compiler == "g++" {
            command.args(["-x", "c++"]);
        }
        let result = command
            .arg(language)
            .args(STRICT)
            .arg("-Wshadow")
            .arg("-I")
            .arg(include)
            .arg("-c")
            .arg(probe)
            .arg("-o")
            .arg(dir.join("probe.o"))
            .output()
            .unwrap_or_else(|error| panic!("cannot run {compiler}: {error}"));
        assert!(
            result.status.success(),
            "{compiler} {language} failed:\n{}",
            String::from_utf8_lossy(&result.stderr)
        );
    }
}

#[test]
fn compiles_against_the_stock_headers_as_c11() {
    // The same program must also accept stock ENet's headers, or it would be
    // checking something other than compatibility with them.
    assert!(
        Path::new("/usr/include/enet/enet.h").is_file(),
        "stock headers missing: apt-get install libenet-dev"
    );
    let dir = tempfile::tempdir().expect("temporary directory");
    compile(
        "gcc",
        &["-std=c11", "-c"],
        None,
        &dir.path().join("stock.o"),
    );
}

#[test]
fn its_macros_evaluate_as_stock_ones_do() {
    // Linked against stock libenet only for the symbols it takes the address
    // of; main() evaluates the function-like macros and exits 0 if all agree.
    let dir = tempfile::tempdir().expect("temporary directory");
    let program = dir.path().join("compile_all_headers");
    for identity in Identity::ALL {
        let result = Command::new("gcc")
            .arg("-std=c11")
            .args(STRICT)
            .args(identity_define(identity))
            .arg("-I")
            .arg(include_dir(identity))
            .arg(repository_root().join(SOURCE))
            .arg("-lenet")
            .arg("-o")
            .arg(&program)
            .output()
            .expect("gcc runs");
        assert!(
            result.status.success(),
            "{identity:?}: link failed:\n{}",
            String::from_utf8_lossy(&result.stderr)
        );
        let status = Command::new(&program).status().expect("program runs");
        assert!(
            status.success(),
            "{identity:?}: a macro evaluated differently: {status}"
        );
    }
}
