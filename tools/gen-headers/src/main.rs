//! `cargo run -p gen-headers`: regenerate both header sets,
//! `include/enet/*.h` (1.3.17) and `include/1.3.18/enet/*.h`.
//! `cargo run -p gen-headers -- --check`: exit 1 if either is out of date.

use std::path::PathBuf;
use std::process::ExitCode;

use gen_headers::{drift, generate, repository_root, write, Identity};

const USAGE: &str = "usage: gen-headers [--check] [--identity RELEASE] [--out-dir DIR]
  (no option)         write both header sets: include/enet/ (the default
                      identity, 1.3.17) and include/1.3.18/enet/ (1.3.18)
  --check             compare both sets with a fresh generation; exit 1 on
                      drift in either
  --identity RELEASE  only the set of RELEASE, 1.3.17 or 1.3.18
  --out-dir DIR       write (or, with --check, compare) one set in DIR
                      instead: 1.3.17's, or that of --identity";

fn main() -> ExitCode {
    let mut check = false;
    let mut only: Option<Identity> = None;
    let mut out_dir: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--check" => check = true,
            "--identity" => match args.next().as_deref().and_then(Identity::from_release) {
                Some(identity) => only = Some(identity),
                None => return usage_error(),
            },
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
    // An output directory holds one set, so it takes one identity.
    let sets: Vec<(Identity, PathBuf)> = match (only, out_dir) {
        (identity, Some(dir)) => vec![(identity.unwrap_or(Identity::Enet1_3_17), dir)],
        (Some(identity), None) => vec![(identity, root.join(identity.header_dir()))],
        (None, None) => Identity::ALL
            .into_iter()
            .map(|identity| (identity, root.join(identity.header_dir())))
            .collect(),
    };

    let mut failed = false;
    for (identity, dir) in sets {
        let headers = match generate(&root, identity) {
            Ok(headers) => headers,
            Err(error) => {
                eprintln!("gen-headers: {error}");
                return ExitCode::FAILURE;
            }
        };
        if check {
            let reports = drift(&dir, &headers);
            if reports.is_empty() {
                println!(
                    "gen-headers: {} {} headers up to date in {}",
                    headers.len(),
                    identity.release(),
                    dir.display()
                );
            } else {
                for report in &reports {
                    eprint!("{report}");
                }
                eprintln!(
                    "gen-headers: the {} headers in {} are stale; run `cargo run -p gen-headers`",
                    identity.release(),
                    dir.display()
                );
                failed = true;
            }
            continue;
        }
        if let Err(error) = write(&dir, &headers) {
            eprintln!("gen-headers: {error}");
            return ExitCode::FAILURE;
        }
        for header in &headers {
            println!("wrote {}", dir.join(&header.file).display());
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn usage_error() -> ExitCode {
    eprintln!("{USAGE}");
    ExitCode::from(2)
}
