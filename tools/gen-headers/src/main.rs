//! `cargo run -p gen-headers`: regenerate `include/enet/*.h`.
//! `cargo run -p gen-headers -- --check`: exit 1 if they are out of date.

use std::path::PathBuf;
use std::process::ExitCode;

use gen_headers::{drift, generate, repository_root, write, HEADER_DIR};

const USAGE: &str = "usage: gen-headers [--check] [--out-dir DIR]
  (no option)    write the headers into include/enet/
  --check        compare include/enet/ with a fresh generation; exit 1 on drift
  --out-dir DIR  write (or, with --check, compare) DIR instead";

fn main() -> ExitCode {
    let mut check = false;
    let mut out_dir: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--check" => check = true,
            "--out-dir" => match args.next() {
                Some(dir) => out_dir = Some(PathBuf::from(dir)),
                None => return usage_error(),
            },
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ => return usage_error(),
        }
    }

    let root = repository_root();
    let dir = out_dir.unwrap_or_else(|| root.join(HEADER_DIR));
    let headers = match generate(&root) {
        Ok(headers) => headers,
        Err(error) => {
            eprintln!("gen-headers: {error}");
            return ExitCode::FAILURE;
        }
    };

    if check {
        let reports = drift(&dir, &headers);
        if reports.is_empty() {
            println!("gen-headers: {} headers up to date", headers.len());
            return ExitCode::SUCCESS;
        }
        for report in &reports {
            eprint!("{report}");
        }
        eprintln!("gen-headers: headers are stale; run `cargo run -p gen-headers`");
        return ExitCode::FAILURE;
    }

    match write(&dir, &headers) {
        Ok(()) => {
            for header in &headers {
                println!("wrote {}", dir.join(&header.file).display());
            }
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("gen-headers: {error}");
            ExitCode::FAILURE
        }
    }
}

fn usage_error() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(2)
}
