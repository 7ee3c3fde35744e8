//! The crate's modules form layers, and this reads the sources and checks
//! that they do (see `docs/architecture.md`):
//!
//! - inside every folder of `src` and of each `crates/*/src` (the crate
//!   root's too), no two modules depend on each other, directly or round a
//!   longer loop (`proto` is three wings, `state` below `peer` below
//!   `host`: state types never reach up into the code that operates on
//!   them, and a peer never reaches its host; in `ffi`, every entry point
//!   finds its host through the leaf `driver.rs`; in `net`, the platform
//!   layer `sys/` never reaches back into the portable modules);
//! - each layer names only the layers below it: `wire` only `abi`, `mem`
//!   only `abi` (its packet-pool switches reach it as values, through a
//!   reader `endpoint` installs), `proto` never `net`, `ffi`, `dtls` or
//!   `config`, `net` never `ffi`, `dtls`, `endpoint` or `config` (its
//!   switches reach it as values), `endpoint` never `ffi`;
//! - only `src/config.rs` reads the environment.
//!
//! A module "names" another when its code (comments and `#[cfg(test)]`
//! items left out: unit tests may reach anywhere) contains a path to it:
//! `crate::x::y`, `super::y`, `super::super::y`, and each member of a
//! `use super::{a, b::C}` or `use crate::x::{y, z}` group. A module's
//! subdirectory (`src/net/sys/`) counts as part of that module.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// One source file: its module path from the crate root (`["net", "sys",
/// "unix", "mmsg"]`; a `mod.rs` is its directory's module), the file's
/// path under `src`, and its code without comments or test-only items.
struct SourceFile {
    module: Vec<String>,
    path: String,
    code: String,
}

fn source_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The `src` of every crate of the repository: this one's, then each
/// `crates/*/src`, in order.
fn crate_roots() -> Vec<PathBuf> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    let mut roots: Vec<PathBuf> = fs::read_dir(&crates)
        .expect("crates directory")
        .map(|entry| entry.expect("entry").path().join("src"))
        .filter(|root| root.is_dir())
        .collect();
    roots.sort();
    roots.insert(0, source_root());
    roots
}

/// Every `.rs` file under `src`, in order.
fn source_paths() -> Vec<PathBuf> {
    source_paths_under(&source_root())
}

/// Every `.rs` file under `root`, in order.
fn source_paths_under(root: &Path) -> Vec<PathBuf> {
    fn walk(directory: &Path, into: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(directory).expect("src directory") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                walk(&path, into);
            } else if path.extension().is_some_and(|extension| extension == "rs") {
                into.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(root, &mut paths);
    paths.sort();
    paths
}

/// Every `.rs` file under `src` as a module, except what only
/// `#[cfg(test)]` compiles (a `#[cfg(test)] mod name;` file or directory).
fn sources() -> Vec<SourceFile> {
    sources_under(&source_root())
}

/// Every `.rs` file of the crate whose source is at `root`, as
/// [`sources`] reads `src`.
fn sources_under(root: &Path) -> Vec<SourceFile> {
    let mut files = Vec::new();
    let mut test_only: Vec<Vec<String>> = Vec::new();
    for path in source_paths_under(root) {
        let relative = path.strip_prefix(root).unwrap();
        let mut module: Vec<String> = relative
            .with_extension("")
            .iter()
            .map(|part| part.to_string_lossy().into_owned())
            .collect();
        // A `mod.rs` is its directory's module; `lib.rs` is the root.
        if module.last().map(String::as_str) == Some("mod") || module == ["lib"] {
            module.pop();
        }
        let text = fs::read_to_string(&path).expect("source");
        let (code, test_modules) = code_of(&text);
        test_only.extend(test_modules.into_iter().map(|name| {
            let mut child = module.clone();
            child.push(name);
            child
        }));
        files.push(SourceFile {
            module,
            path: relative.to_string_lossy().replace('\\', "/"),
            code,
        });
    }
    files.retain(|file| !test_only.iter().any(|test| file.module.starts_with(test)));
    files
}

/// The code of a source text: comments removed (string literals kept, so
/// a `//` inside one stays), then every `#[cfg(test)]` item removed. Also
/// the names of the `#[cfg(test)] mod name;` files it declares.
fn code_of(text: &str) -> (String, Vec<String>) {
    let code = without_comments(text);
    let mut kept = String::new();
    let mut test_modules = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("#[cfg(test)]") {
        kept.push_str(&rest[..at]);
        let item = &rest[at + "#[cfg(test)]".len()..];
        // The item ends at its first `;` or `,` outside brackets, after
        // its first block, or before the `}` of the block around it (a
        // test-only field).
        let mut depth = 0usize;
        let mut end = item.len();
        for (index, c) in item.char_indices() {
            match c {
                '{' | '(' | '[' => depth += 1,
                ')' | ']' => depth = depth.saturating_sub(1),
                '}' if depth == 0 => {
                    end = index;
                    break;
                }
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = index + 1;
                        break;
                    }
                }
                ',' if depth == 0 => {
                    end = index + 1;
                    break;
                }
                ';' if depth == 0 => {
                    end = index + 1;
                    let declaration = item[..index].trim();
                    if let Some(name) = declaration
                        .strip_prefix("pub ")
                        .unwrap_or(declaration)
                        .strip_prefix("mod ")
                    {
                        test_modules.push(name.trim().to_string());
                    }
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    kept.push_str(rest);
    (kept, test_modules)
}

/// `text` with its `//` and `/* */` comments blanked out.
fn without_comments(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        let next = chars.get(index + 1).copied();
        if c == '/' && next == Some('/') {
            while index < chars.len() && chars[index] != '\n' {
                index += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while index < chars.len() {
                if chars[index] == '/' && chars.get(index + 1) == Some(&'*') {
                    depth += 1;
                    index += 2;
                } else if chars[index] == '*' && chars.get(index + 1) == Some(&'/') {
                    depth -= 1;
                    index += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    index += 1;
                }
            }
            out.push(' ');
        } else if c == '"' {
            // A string literal, escapes and all.
            out.push(c);
            index += 1;
            while index < chars.len() && chars[index] != '"' {
                if chars[index] == '\\' {
                    out.push(chars[index]);
                    index += 1;
                }
                if index < chars.len() {
                    out.push(chars[index]);
                    index += 1;
                }
            }
            if index < chars.len() {
                out.push('"');
                index += 1;
            }
        } else if c == '\'' && (chars.get(index + 2) == Some(&'\'') || next == Some('\\')) {
            // A character literal ('"', '\'', '\n'), not a lifetime.
            // Past the escape's first character (`\\`, `\'`) to the quote.
            let end = (index + 3..chars.len())
                .find(|&at| chars[at] == '\'')
                .unwrap_or(chars.len() - 1);
            out.extend(&chars[index..=end]);
            index = end + 1;
        } else {
            out.push(c);
            index += 1;
        }
    }
    out
}

fn is_identifier(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path the code of a module at `module` names, from the crate
/// root: `crate::a::b` and `super::b` (as many `super::` as it has), with
/// each member of a `{...}` group its own path. A glob (`super::*`) ends
/// in `"*"`.
fn named_paths(module: &[String], code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut paths = Vec::new();
    let mut index = 0;
    while index < chars.len() {
        let starts_word = index == 0 || !is_identifier(chars[index - 1]);
        let at = |word: &str, from: usize| {
            word.chars()
                .enumerate()
                .all(|(offset, c)| chars.get(from + offset) == Some(&c))
        };
        if starts_word && (at("crate::", index) || at("super::", index)) {
            let mut base: Vec<String> = Vec::new();
            let mut cursor = index;
            if at("crate::", cursor) {
                cursor += "crate::".len();
            } else {
                let mut ups = 0;
                while at("super::", cursor) {
                    ups += 1;
                    cursor += "super::".len();
                }
                base = module[..module.len().saturating_sub(ups)].to_vec();
            }
            index = read_tree(&chars, cursor, base, &mut paths);
        } else {
            index += 1;
        }
    }
    paths
}

/// Reads one use tree at `index` (`a::b`, `{a, b::{c, d}}`, `*`) onto
/// `base`, and returns where it ends.
fn read_tree(
    chars: &[char],
    mut index: usize,
    base: Vec<String>,
    into: &mut Vec<Vec<String>>,
) -> usize {
    let skip_space = |mut index: usize| {
        while index < chars.len() && chars[index].is_whitespace() {
            index += 1;
        }
        index
    };
    index = skip_space(index);
    match chars.get(index) {
        Some('{') => {
            index += 1;
            loop {
                index = skip_space(index);
                match chars.get(index) {
                    None => return index,
                    Some('}') => return index + 1,
                    Some(',') => index += 1,
                    _ => {
                        index = read_tree(chars, index, base.clone(), into);
                        // Past an `as name` to the next member or the end.
                        while index < chars.len() && !matches!(chars[index], ',' | '}') {
                            index += 1;
                        }
                    }
                }
            }
        }
        Some('*') => {
            let mut path = base;
            path.push("*".to_string());
            into.push(path);
            index + 1
        }
        _ => {
            let start = index;
            while index < chars.len() && is_identifier(chars[index]) {
                index += 1;
            }
            if index == start {
                return index;
            }
            let mut path = base;
            path.push(chars[start..index].iter().collect());
            if chars.get(index) == Some(&':') && chars.get(index + 1) == Some(&':') {
                read_tree(chars, index + 2, path, into)
            } else {
                into.push(path);
                index
            }
        }
    }
}

/// The modules of the layer `src/<layer>` (its files and subdirectories,
/// without its `mod.rs`) and, for each, the others it names.
fn layer_dependencies(files: &[SourceFile], layer: &str) -> BTreeMap<String, BTreeSet<String>> {
    folder_dependencies(files, &[layer.to_string()])
}

/// The modules of the folder module `folder` (`[]` for the crate root,
/// `["net", "sys"]` for `src/net/sys`): its files and subdirectories,
/// without its own `mod.rs` or `lib.rs`, and, for each, the others it
/// names. A file in a subdirectory belongs to the subdirectory's module;
/// a glob of the folder (`use super::*` outside a test) names every
/// module of it.
fn folder_dependencies(
    files: &[SourceFile],
    folder: &[String],
) -> BTreeMap<String, BTreeSet<String>> {
    let depth = folder.len();
    let inside = |module: &[String]| module.len() > depth && module.starts_with(folder);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        if inside(&file.module) {
            graph.entry(file.module[depth].clone()).or_default();
        }
    }
    let known: BTreeSet<String> = graph.keys().cloned().collect();
    for file in files {
        if !inside(&file.module) {
            continue;
        }
        let own = &file.module[depth];
        let mut uses = BTreeSet::new();
        for path in named_paths(&file.module, &file.code) {
            if !path.starts_with(folder) {
                continue;
            }
            match path.get(depth).map(String::as_str) {
                Some("*") => uses.extend(known.iter().cloned()),
                Some(used) if known.contains(used) => {
                    uses.insert(used.to_string());
                }
                // The folder's own items (`super::Host`, re-exported by
                // its mod.rs) name no one module.
                _ => {}
            }
        }
        uses.remove(own);
        graph.get_mut(own).unwrap().extend(uses);
    }
    graph
}

/// Every folder module of a crate's files: the root and each module that
/// has modules inside it (a directory, or a file with inline-declared
/// files under a directory of its name).
fn folders(files: &[SourceFile]) -> BTreeSet<Vec<String>> {
    files
        .iter()
        .flat_map(|file| (0..file.module.len()).map(|depth| file.module[..depth].to_vec()))
        .collect()
}

/// A loop of dependencies, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        done: &mut BTreeSet<String>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|on_path| on_path == node) {
            let mut cycle = path[start..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in &graph[node] {
            if let Some(cycle) = visit(next, graph, done, path) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut done, &mut Vec::new()))
}

fn assert_no_cycle(folder: &str, graph: &BTreeMap<String, BTreeSet<String>>) {
    if let Some(cycle) = find_cycle(graph) {
        panic!(
            "modules of {folder} depend on each other in a loop: {}",
            cycle.join(" -> ")
        );
    }
}

/// A folder's module path from its parts.
fn folder(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|part| part.to_string()).collect()
}

#[test]
fn proto_modules_depend_on_each_other_without_loops() {
    let files = sources();
    let wings = layer_dependencies(&files, "proto");
    assert_eq!(
        wings.keys().map(String::as_str).collect::<Vec<_>>(),
        ["host", "peer", "state"],
        "proto is made of its three wings"
    );
    assert_no_cycle("proto", &wings);
    // Inside each wing, no loop either; the reading itself works: these
    // edges are known to exist.
    let state = folder_dependencies(&files, &folder(&["proto", "state"]));
    assert!(state.len() > 10, "found only {:?}", state.keys());
    assert!(state["channel"].contains("reassembly"));
    assert_no_cycle("proto/state", &state);
    let peer = folder_dependencies(&files, &folder(&["proto", "peer"]));
    assert!(peer["in_flight"].contains("slot"));
    assert_no_cycle("proto/peer", &peer);
    let host = folder_dependencies(&files, &folder(&["proto", "host"]));
    assert!(host["delivery"].contains("engine"));
    assert_no_cycle("proto/host", &host);
}

#[test]
fn proto_wings_name_only_the_floors_below_them() {
    let wings = layer_dependencies(&sources(), "proto");
    // The reading itself works: the peer's slot names a channel's state,
    // and the host names its peers.
    assert!(wings["peer"].contains("state"));
    assert!(wings["host"].contains("peer"));
    assert!(
        wings["state"].is_empty(),
        "proto/state names {:?}: state types must not reach up into the code that operates on them",
        wings["state"]
    );
    assert!(
        !wings["peer"].contains("host"),
        "proto/peer names proto/host: a peer's logic returns what it means for the host instead"
    );
}

#[test]
fn ffi_modules_depend_on_each_other_without_loops() {
    let graph = layer_dependencies(&sources(), "ffi");
    assert!(graph.len() > 10, "found only {:?}", graph.keys());
    assert!(graph["host"].contains("driver"));
    assert!(graph["host"].contains("enet_rs_net"));
    assert!(graph["peer"].contains("host"));
    // The guard is a leaf, and the host's allocation names only it.
    assert!(graph["busy"].is_empty(), "{:?}", graph["busy"]);
    assert!(
        graph["driver"].iter().all(|name| name == "busy"),
        "{:?}",
        graph["driver"]
    );
    assert_no_cycle("src/ffi", &graph);
}

#[test]
fn net_modules_depend_on_each_other_without_loops() {
    let graph = layer_dependencies(&sources(), "net");
    assert!(graph.len() > 5, "found only {:?}", graph.keys());
    assert!(graph["transport"].contains("batch"));
    assert!(graph["transport"].contains("sys"));
    // `src/net/sys/unix/mmsg.rs` names `crate::net::batch`.
    assert!(graph["sys"].contains("batch"));
    assert_no_cycle("src/net", &graph);
}

/// For each folder module of each crate (`src`, `src/net/sys`,
/// `crates/enet-safe/src`, ...), the dependencies of its modules.
fn every_folder_dependencies() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut graphs = BTreeMap::new();
    for root in crate_roots() {
        let name = root
            .strip_prefix(manifest)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let files = sources_under(&root);
        for folder in folders(&files) {
            let label = [name.clone()].into_iter().chain(folder.iter().cloned());
            let label = label.collect::<Vec<_>>().join("/");
            graphs.insert(label, folder_dependencies(&files, &folder));
        }
    }
    graphs
}

#[test]
fn modules_of_every_folder_depend_on_each_other_without_loops() {
    let graphs = every_folder_dependencies();
    // The reading itself works: these folders and edges are known to exist.
    for folder in [
        "src",
        "src/proto",
        "src/ffi",
        "src/net",
        "src/net/sys",
        "src/dtls",
        "src/mem",
        "src/wire",
        "crates/enet-safe/src",
        "crates/netsim/src",
    ] {
        assert!(
            graphs.contains_key(folder),
            "no folder {folder} in {:?}",
            graphs.keys()
        );
    }
    assert!(graphs["src"]["ffi"].contains("proto"));
    assert!(graphs["src"]["proto"].contains("wire"));
    assert!(graphs["src/dtls"]["setup"].contains("setup_error"));
    assert!(graphs["src/dtls"]["verify"].contains("setup_error"));
    assert!(graphs["src/mem"]["pool"].contains("hooks"));
    assert!(graphs["src/mem"]["pool"].contains("checker"));
    assert!(graphs["crates/enet-safe/src"]["host"].contains("sender"));
    assert!(graphs["crates/enet-safe/src"]["sender"].contains("peer"));
    let loops: Vec<String> = graphs
        .iter()
        .filter_map(|(folder, graph)| {
            find_cycle(graph).map(|cycle| format!("{folder}: {}", cycle.join(" -> ")))
        })
        .collect();
    assert!(
        loops.is_empty(),
        "modules of a folder depend on each other in a loop:\n{}",
        loops.join("\n")
    );
}

#[test]
fn endpoint_modules_depend_on_each_other_without_loops() {
    let graph = layer_dependencies(&sources(), "endpoint");
    assert_no_cycle("endpoint", &graph);
    // The reading itself works: the builder draws its seed from `seed`.
    assert!(graph["builder"].contains("seed"));
    assert!(graph["seed"].is_empty(), "{:?}", graph["seed"]);
}

/// The modules of the crate each layer may name, besides its own: the
/// "uses" column of `docs/architecture.md` (`dtls`, not in that table,
/// may use the engine and what is below it). `net` takes its switches as
/// values from the host's builder (`endpoint`), which assembles a host
/// from `net` and `dtls`, and so does `mem` (the packet pool's switches,
/// through a reader the builder installs); `ffi` sits on top and may name
/// any of them.
const MAY_NAME: &[(&str, &[&str])] = &[
    ("abi", &[]),
    ("time", &[]),
    ("config", &[]),
    ("wire", &["abi"]),
    ("mem", &["abi"]),
    ("proto", &["abi", "time", "wire", "mem"]),
    ("dtls", &["abi", "time", "wire", "mem", "proto"]),
    ("net", &["abi", "mem", "proto"]),
    (
        "endpoint",
        &[
            "abi", "time", "config", "wire", "mem", "proto", "dtls", "net",
        ],
    ),
];

/// Each file that names a module of the crate its layer may not, with
/// that module.
fn layer_violations(files: &[SourceFile]) -> Vec<(String, String)> {
    let top: BTreeSet<String> = files
        .iter()
        .filter_map(|file| file.module.first().cloned())
        .collect();
    let mut violations = Vec::new();
    for file in files {
        let Some(layer) = file.module.first() else {
            continue;
        };
        let Some((_, allowed)) = MAY_NAME.iter().find(|(name, _)| name == layer) else {
            continue;
        };
        for path in named_paths(&file.module, &file.code) {
            let Some(named) = path.first() else {
                continue;
            };
            if named != layer && top.contains(named) && !allowed.contains(&named.as_str()) {
                violations.push((file.path.clone(), named.clone()));
            }
        }
    }
    violations.sort();
    violations.dedup();
    violations
}

#[test]
fn each_layer_names_only_the_layers_below_it() {
    let files = sources();
    // The reading itself works: every layer of the table has sources.
    for (layer, _) in MAY_NAME {
        assert!(
            files
                .iter()
                .any(|file| file.module.first().map(String::as_str) == Some(layer)),
            "no sources for {layer}"
        );
    }
    let violations = layer_violations(&files);
    assert!(
        violations.is_empty(),
        "modules name a layer above their own (file, layer named): {violations:?}"
    );
}

/// What reads the environment at run time.
const ENVIRONMENT_READS: &[&str] = &["std::env", "env::var", "var_os", "getenv"];

#[test]
fn only_config_reads_the_environment() {
    let root = source_root();
    let mut readers = Vec::new();
    let mut config_seen = false;
    // Every file, unit tests too: a test that sets a variable changes
    // what the library reads.
    for path in source_paths() {
        let name = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if name == "config.rs" {
            config_seen = true;
            continue;
        }
        let code = without_comments(&fs::read_to_string(&path).expect("source"));
        for read in ENVIRONMENT_READS {
            if code.contains(read) {
                readers.push((name.clone(), *read));
            }
        }
    }
    assert!(config_seen, "no src/config.rs");
    assert!(
        readers.is_empty(),
        "only src/config.rs may read the environment; found {readers:?}"
    );
}

#[test]
fn paths_are_read_as_the_compiler_resolves_them() {
    let module: Vec<String> = ["net", "sys", "unix", "mmsg"].map(String::from).to_vec();
    let code = code_of(
        "use super::{offload::{self, ControlBuffer}, socket_name::SocketName};\n\
         use crate::net::batch::{Datagram, BATCH as B};\n\
         // use crate::ffi::host;\n\
         let s = \"// not a comment\"; let c = '\"'; super::super::clock::now();\n\
         pub(super) fn f() {}\n\
         #[cfg(test)]\nmod tests { use crate::proto::Host; }\n\
         #[cfg(test)]\nmod test_suite;\n\
         struct S { #[cfg(test)] probe: crate::proto::Host, kept: crate::abi::ENetHost }\n\
         #[cfg(test)]\nfn table() -> [u8; 2] { crate::proto::TABLE }\n",
    );
    assert_eq!(code.1, vec!["test_suite".to_string()]);
    let paths: Vec<String> = named_paths(&module, &code.0)
        .into_iter()
        .map(|path| path.join("::"))
        .collect();
    assert_eq!(
        paths,
        [
            "net::sys::unix::offload::self",
            "net::sys::unix::offload::ControlBuffer",
            "net::sys::unix::socket_name::SocketName",
            "net::batch::Datagram",
            "net::batch::BATCH",
            "net::sys::clock::now",
            "abi::ENetHost",
        ]
    );
    let globbed = named_paths(&["proto".to_string(), "peer".to_string()], "use super::*;");
    assert_eq!(globbed, vec![vec!["proto".to_string(), "*".to_string()]]);
}

#[test]
fn a_loop_is_found_when_there_is_one() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(name, uses)| {
        (
            name.to_string(),
            uses.into_iter().map(String::from).collect(),
        )
    })
    .collect();
    assert_eq!(
        find_cycle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
}

#[test]
fn a_loop_is_found_in_any_folder_of_a_crate() {
    let file = |module: &[&str], code: &str| SourceFile {
        module: module.iter().map(|part| part.to_string()).collect(),
        path: format!("{}.rs", module.join("/")),
        code: code.to_string(),
    };
    let files = [
        file(&[], "mod x; mod y;"),
        // Round the folder `x`: `a` names `b` (through a file inside it),
        // and `b/c.rs` names `a`.
        file(&["x"], "pub use a::A;"),
        file(&["x", "a"], "use super::b::c::C;"),
        file(&["x", "b"], "mod c; mod d;"),
        file(&["x", "b", "c"], "use crate::x::a::A; use super::d::D;"),
        // Inside the folder `x/b`: `d` names `c`, which names `d`.
        file(&["x", "b", "d"], "fn f() { super::c::g() }"),
        // `y` has modules that depend on each other one way only.
        file(&["y", "p"], "use super::{q, r::R};"),
        file(&["y", "q"], "use super::r::*;"),
        file(&["y", "r"], ""),
    ];
    let found: Vec<Vec<String>> = folders(&files).into_iter().collect();
    assert_eq!(
        found,
        [vec![], vec!["x"], vec!["x", "b"], vec!["y"]]
            .map(|folder: Vec<&str>| folder.into_iter().map(String::from).collect::<Vec<_>>())
    );
    let loop_of = |folder: &[&str]| {
        let folder: Vec<String> = folder.iter().map(|part| part.to_string()).collect();
        find_cycle(&folder_dependencies(&files, &folder))
    };
    assert_eq!(loop_of(&[]), None);
    assert_eq!(
        loop_of(&["x"]),
        Some(vec!["a".into(), "b".into(), "a".into()])
    );
    assert_eq!(
        loop_of(&["x", "b"]),
        Some(vec!["c".into(), "d".into(), "c".into()])
    );
    assert_eq!(loop_of(&["y"]), None);
}
