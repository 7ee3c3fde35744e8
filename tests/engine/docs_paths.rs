//! Every relative link and every repository path that `README.md` and
//! `docs/*.md` name exists, so the guide cannot point at a file that was
//! moved or never written.
//!
//! Two kinds of reference are checked, outside fenced code blocks:
//! - markdown links `[text](target)` (and images, and `[text]: target`
//!   definitions) whose target is relative: not `http:`, `https:`,
//!   `mailto:` or an anchor of the same page. The `#anchor` is dropped and
//!   the rest resolved against the directory of the file that links;
//! - inline code that looks like a repository path: it starts with one of
//!   the repository's source directories (`src/`, `tests/`, ...) or is a
//!   top-level file (`Cargo.toml`, ...), resolved against the repository
//!   root, with a trailing `:line` dropped. Code with a space, a glob `*`
//!   or a placeholder (`<name>`, an all-capitals part such as `DIR`) is a
//!   command or a pattern, not a path, and is skipped.

use std::fs;
use std::path::{Path, PathBuf};

/// Inline code starting with one of these names a path in the repository.
const SOURCE_DIRECTORIES: &[&str] = &[
    ".ci/",
    "bench/",
    "cmake/",
    "crates/",
    "docs/",
    "examples/",
    "fuzz/",
    "include/",
    "scripts/",
    "src/",
    "tests/",
    "tests-c/",
    "tests-py/",
    "tools/",
];

/// Inline code equal to one of these names a top-level file.
const TOP_LEVEL_FILES: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "CMakeLists.txt",
    "README.md",
    "DESIGN.md",
    "build.rs",
    "cbindgen.toml",
];

/// What the check found: the references it followed, and those that lead
/// nowhere (`file: what`).
#[derive(Debug, Default)]
struct Report {
    checked: usize,
    broken: Vec<String>,
}

/// `README.md` and every `docs/*.md` under `root`.
fn guide_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md")];
    if let Ok(entries) = fs::read_dir(root.join("docs")) {
        let mut pages: Vec<PathBuf> = entries
            .map(|entry| entry.expect("docs entry").path())
            .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
            .collect();
        pages.sort();
        files.extend(pages);
    }
    files
}

/// The text of `markdown` outside fenced code blocks.
fn outside_fences(markdown: &str) -> String {
    let mut text = String::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            text.push_str(line);
            text.push('\n');
        }
    }
    text
}

/// Splits text into prose and inline code: in each paragraph (code spans
/// never cross a blank line), the pieces between backticks, code at odd
/// positions.
fn prose_and_code(text: &str) -> (Vec<&str>, Vec<&str>) {
    let mut prose = Vec::new();
    let mut code = Vec::new();
    for paragraph in text.split("\n\n") {
        for (position, piece) in paragraph.split('`').enumerate() {
            if position % 2 == 0 {
                prose.push(piece);
            } else {
                code.push(piece);
            }
        }
    }
    (prose, code)
}

/// Link targets in prose: `[text](target)`, `![alt](target)` and
/// `[text]: target` at the start of a line.
fn link_targets(prose: &str) -> Vec<String> {
    let mut targets = Vec::new();
    for (at, _) in prose.match_indices("](") {
        let rest = &prose[at + 2..];
        let target: String = rest
            .chars()
            .take_while(|c| *c != ')' && !c.is_whitespace())
            .collect();
        targets.push(target);
    }
    for line in prose.lines() {
        let line = line.trim_start();
        if let (Some(rest), Some(end)) = (line.strip_prefix('['), line.find("]:")) {
            if end > 0 && !rest[..end - 1].contains(']') {
                if let Some(target) = line[end + 2..].split_whitespace().next() {
                    targets.push(target.to_string());
                }
            }
        }
    }
    targets
}

/// The file a link target names, relative to the linking file's
/// directory; `None` for links that leave the repository or stay on the
/// page.
fn relative_link(target: &str) -> Option<&str> {
    let target = target.trim_start_matches('<').trim_end_matches('>');
    let lower = target.to_ascii_lowercase();
    if ["http://", "https://", "mailto:"]
        .iter()
        .any(|scheme| lower.starts_with(scheme))
    {
        return None;
    }
    let path = target.split('#').next().unwrap_or("");
    (!path.is_empty()).then_some(path)
}

/// Whether a part of a path stands for something (`DIR`, `TARGET`,
/// `<name>`) rather than naming it.
fn is_placeholder(part: &str) -> bool {
    part.contains('<')
        || part.contains('>')
        || (part.len() >= 2
            && part.chars().all(|c| c.is_ascii_uppercase() || c == '_')
            && part.chars().any(|c| c.is_ascii_uppercase()))
}

/// The repository path inline code names, if it names one.
fn repository_path(code: &str) -> Option<&str> {
    let code = code.trim();
    if code.is_empty() || code.contains(char::is_whitespace) || code.contains('*') {
        return None;
    }
    // `src/proto/service.rs:120` names the file.
    let path = match code.rsplit_once(':') {
        Some((path, line)) if !line.is_empty() && line.chars().all(|c| c.is_ascii_digit()) => path,
        _ => code,
    };
    let looks_like_path = SOURCE_DIRECTORIES
        .iter()
        .any(|directory| path.starts_with(directory))
        || TOP_LEVEL_FILES.contains(&path);
    if !looks_like_path || path.contains(':') || path.split('/').any(is_placeholder) {
        return None;
    }
    Some(path)
}

/// Follows every reference of the guide under `root`.
fn check(root: &Path) -> Report {
    let mut report = Report::default();
    for file in guide_files(root) {
        let name = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        let markdown = match fs::read_to_string(&file) {
            Ok(markdown) => markdown,
            Err(error) => {
                report
                    .broken
                    .push(format!("{name}: cannot be read ({error})"));
                continue;
            }
        };
        let text = outside_fences(&markdown);
        let (prose, code) = prose_and_code(&text);
        let directory = file.parent().unwrap_or(root);
        for target in prose.iter().flat_map(|piece| link_targets(piece)) {
            if let Some(path) = relative_link(&target) {
                report.checked += 1;
                if !directory.join(path).exists() {
                    report
                        .broken
                        .push(format!("{name}: link ({target}) leads nowhere"));
                }
            }
        }
        for path in code.iter().filter_map(|piece| repository_path(piece)) {
            report.checked += 1;
            if !root.join(path).exists() {
                report
                    .broken
                    .push(format!("{name}: path `{path}` does not exist"));
            }
        }
    }
    report
}

#[test]
fn every_link_and_path_in_the_guide_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let report = check(root);
    assert!(
        report.broken.is_empty(),
        "README.md and docs/ name what is not in the repository:\n{}",
        report.broken.join("\n")
    );
    // The reading itself works: the guide names many files.
    assert!(report.checked > 100, "only {} references", report.checked);
}

#[test]
fn the_check_reports_a_broken_link_and_a_missing_path() {
    let scratch = std::env::temp_dir().join(format!("enet-docs-paths-{}", std::process::id()));
    let _ = fs::remove_dir_all(&scratch);
    fs::create_dir_all(scratch.join("docs")).unwrap();
    fs::create_dir_all(scratch.join("src")).unwrap();
    fs::write(scratch.join("src/real.rs"), "").unwrap();
    fs::write(
        scratch.join("README.md"),
        "[fine](docs/page.md#part), [gone](docs/gone.md), ![picture](docs/page.md)\n\
         [web](https://example.com/x.md), [here](#top), [mail](mailto:a@b.c)\n\
         `src/real.rs:12` and `src/missing.rs`, but not `src/*.rs`,\n\
         `fuzz/corpus/TARGET/`, `bench/run.sh --ours DIR` or `enet/enet.h`.\n\
         ```sh\nsrc/fenced.rs [fenced](nowhere.md)\n```\n\
         `[in code](nowhere.md)`\n",
    )
    .unwrap();
    fs::write(
        scratch.join("docs/page.md"),
        "[back](../README.md) [sibling](other.md)\n\n[definition]: ../src/real.rs\n",
    )
    .unwrap();
    let report = check(&scratch);
    fs::remove_dir_all(&scratch).unwrap();
    assert_eq!(
        report.broken,
        [
            "README.md: link (docs/gone.md) leads nowhere",
            "README.md: path `src/missing.rs` does not exist",
            "docs/page.md: link (other.md) leads nowhere",
        ],
        "{report:?}"
    );
    // fine, gone, picture, real.rs, missing.rs; back, sibling, definition.
    assert_eq!(report.checked, 8, "{report:?}");
}

#[test]
fn placeholders_and_commands_are_not_paths() {
    assert_eq!(repository_path("src/wire/mod.rs"), Some("src/wire/mod.rs"));
    assert_eq!(repository_path("src/net/sys/"), Some("src/net/sys/"));
    assert_eq!(repository_path("Cargo.toml"), Some("Cargo.toml"));
    assert_eq!(
        repository_path("tests/hostile.rs:40"),
        Some("tests/hostile.rs")
    );
    assert_eq!(repository_path("fuzz/corpus/TARGET/"), None);
    assert_eq!(repository_path("tools/<name>/"), None);
    assert_eq!(repository_path("include/enet/*.h"), None);
    assert_eq!(repository_path("scripts/soak.sh --runs 100"), None);
    assert_eq!(repository_path("target/release/libenet.so"), None);
    assert_eq!(repository_path("enet/enet_rs.h"), None);
}
