//! `tests-c/compile_all_headers.c` compiles warning-free against our headers
//! (as C11 and as C++11) and against the stock Debian headers, and runs.
//!
//! That program pins every size, offset, constant value, macro result and
//! function type a program can observe to stock ENet 1.3.17's, so this is
//! where a generated header that drifts from stock in meaning fails.

use std::path::Path;
use std::process::Command;

use gen_headers::repository_root;

const SOURCE: &str = "tests-c/compile_all_headers.c";
const STRICT: [&str; 4] = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"];

fn compile(compiler: &str, language: &[&str], include: Option<&Path>, output: &Path) {
    let root = repository_root();
    let mut command = Command::new(compiler);
    command.args(language).args(STRICT);
    if let Some(include) = include {
        command.arg("-I").arg(include);
    }
    command.arg(root.join(SOURCE)).arg("-o").arg(output);
    let result = command
        .output()
        .unwrap_or_else(|error| panic!("cannot run {compiler}: {error}"));
    assert!(
        result.status.success(),
        "{compiler} {language:?} (include {include:?}) failed:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
}

#[test]
fn compiles_against_our_headers_as_c11() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let include = repository_root().join("include");
    compile(
        "gcc",
        &["-std=c11", "-c"],
        Some(&include),
        &dir.path().join("ours.o"),
    );
}

#[test]
fn compiles_against_our_headers_as_cxx11() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let include = repository_root().join("include");
    compile(
        "g++",
        &["-x", "c++", "-std=c++11", "-c"],
        Some(&include),
        &dir.path().join("ours-cxx.o"),
    );
}

#[test]
fn our_headers_alone_are_clean_as_c89_and_cxx98() {
    // The test program itself needs C11/C++11 (static assertions); this only
    // shows the headers alone are clean in the oldest dialects stock supports.
    let dir = tempfile::tempdir().expect("temporary directory");
    let probe = dir.path().join("probe.c");
    std::fs::write(
        &probe,
        "#include <enet/enet.h>\n#include <enet/time.h>\n#include <enet/utility.h>\n\
         int main (void) { return ENET_VERSION == ENET_VERSION_CREATE (1, 3, 17) ? 0 : 1; }\n",
    )
    .expect("probe written");
    let include = repository_root().join("include");
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
            .arg(&include)
            .arg("-c")
            .arg(&probe)
            .arg("-o")
            .arg(dir.path().join("probe.o"))
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
    let root = repository_root();
    let result = Command::new("gcc")
        .arg("-std=c11")
        .args(STRICT)
        .arg("-I")
        .arg(root.join("include"))
        .arg(root.join(SOURCE))
        .arg("-lenet")
        .arg("-o")
        .arg(&program)
        .output()
        .expect("gcc runs");
    assert!(
        result.status.success(),
        "link failed:\n{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let status = Command::new(&program).status().expect("program runs");
    assert!(status.success(), "a macro evaluated differently: {status}");
}
