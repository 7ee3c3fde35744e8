//! A newcomer's first run: the README's "See stock ENet and ours side by
//! side" command, read out of the README's code block so this test
//! follows the README, run with a shorter `--duration` (and `--json`, to
//! read the figures) in a scratch directory. The picture it draws must
//! decode and the report must carry the latency figures.
//!
//! The block's first line (set-up and a release build) is this test's own
//! build; its `target/release/enetperf` is the enetperf Cargo built for
//! the test, which loads our `libenet.so` from beside itself (build it
//! first, as for `cli.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

const ENETPERF: &str = env!("CARGO_BIN_EXE_enetperf");

/// The shell block under the README's main-job heading.
fn main_job_block() -> Vec<String> {
    let readme = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let text = std::fs::read_to_string(&readme).expect("README.md");
    let section = text
        .split("\n## See stock ENet and ours side by side\n")
        .nth(1)
        .expect("the README has its main-job section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("a sh block in the main-job section");
    block.lines().map(str::to_string).collect()
}

/// A directory of its own under the system's temporary one, removed
/// when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        let dir = std::env::temp_dir().join(format!("enetperf-readme-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn the_readme_s_main_job_runs_as_written() {
    let block = main_job_block();
    assert_eq!(block.len(), 2, "set-up and build, then compare: {block:?}");
    assert!(
        block[0].starts_with("scripts/setup-debian.sh && cargo build --release")
            && block[0].contains("-p libenet")
            && block[0].contains("-p enetperf"),
        "{}",
        block[0]
    );
    // The command as written: plain words, nothing for a shell to expand.
    let command = &block[1];
    assert!(
        !command.contains(['\'', '"', '$', '*', '|', '>', '<', '&', ';', '\\']),
        "{command}"
    );
    let mut words = command.split_whitespace();
    assert_eq!(words.next(), Some("target/release/enetperf"));
    let args: Vec<&str> = words.collect();
    assert_eq!(args.first(), Some(&"compare"), "{command}");

    let scratch = Scratch::new();
    let output = Command::new(ENETPERF)
        .args(&args)
        // Shorter, and readable: a repeated option takes the last value.
        .args(["--duration", "2", "--json"])
        .current_dir(&scratch.0)
        .output()
        .expect("enetperf runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("plot written to enetperf-compare.png"),
        "{stderr}"
    );

    // The picture decodes: two columns of three panels.
    let path = scratch.0.join("enetperf-compare.png");
    let decoder = png::Decoder::new(std::fs::File::open(&path).expect("the picture"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut pixels).expect("its pixels decode");
    assert_eq!((frame.width, frame.height), (1440, 1020));

    // Both runs, stock first, each with its latency figures.
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("JSON");
    let runs = json["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 2, "{stdout}");
    for (run, library) in runs.iter().zip(["stock ENet", "enet-rs"]) {
        assert_eq!(run["library"], library);
        assert_eq!(run["impairment"]["loss"], 0.05);
        assert_eq!(run["impairment"]["delay_ms"], 20);
        assert!(run["latency_samples"].as_u64().unwrap() > 0, "{run}");
        for name in [
            "latency_p50_ms",
            "latency_p99_ms",
            "latency_max_ms",
            "longest_stall_ms",
        ] {
            let ms = run[name]
                .as_f64()
                .unwrap_or_else(|| panic!("{library}: {name} in {run}"));
            // At least the proxy's 20 ms one way.
            assert!(ms >= 19.0, "{library}: {name} {ms} ms");
        }
    }
    // Nothing but the picture was written, and only in the scratch
    // directory.
    let written: Vec<_> = std::fs::read_dir(&scratch.0)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .collect();
    assert_eq!(written, ["enetperf-compare.png"]);
}
