//! Replays every committed fuzz corpus file (`fuzz/corpus/TARGET/*`)
//! through the same target bodies cargo-fuzz runs, on the stable
//! toolchain, so that `cargo test --workspace` (and so CI) checks that no
//! corpus input, crash reproducers included, fails again.

use std::fs;
use std::path::PathBuf;

fn corpus_files(target: &str) -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("corpus entry").path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

fn replay(target: &str) {
    let files = corpus_files(target);
    assert!(!files.is_empty(), "the {target} corpus is empty");
    for file in &files {
        let data = fs::read(file).expect("corpus file");
        eprintln!("{}", file.display());
        assert!(fuzz_logic::run(target, &data));
    }
    println!("{target}: replayed {} files", files.len());
}

#[test]
fn replay_wire_parse() {
    replay("wire_parse");
}

#[test]
fn replay_engine() {
    replay("engine");
}

#[test]
fn replay_range_coder() {
    replay("range_coder");
}

#[test]
fn replay_reassembly() {
    replay("reassembly");
}

#[test]
fn replay_dtls_receive() {
    replay("dtls_receive");
}

#[test]
fn every_target_has_a_replay_test() {
    assert_eq!(
        fuzz_logic::TARGETS,
        [
            "wire_parse",
            "engine",
            "range_coder",
            "reassembly",
            "dtls_receive",
            "netsim"
        ]
    );
}

#[test]
fn replay_netsim() {
    replay("netsim");
}
