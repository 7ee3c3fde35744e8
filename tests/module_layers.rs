//! The engine's modules form layers: state types (channel, peer, host and
//! what they are made of) never reach up into the code that operates on
//! them, so no two modules of `src/proto` depend on each other, directly or
//! round a longer loop. This reads the sources and checks that.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// Each module of `src/proto` and the sibling modules it names
/// (`super::name` anywhere: imports and paths alike).
fn proto_dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let directory = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/proto");
    let mut modules = BTreeMap::new();
    for entry in fs::read_dir(&directory).expect("src/proto") {
        let path = entry.expect("entry").path();
        if path.extension().is_none_or(|extension| extension != "rs") {
            continue;
        }
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        if name == "mod" {
            continue;
        }
        let source = fs::read_to_string(&path).expect("source");
        let mut uses = BTreeSet::new();
        for (at, _) in source.match_indices("super::") {
            let rest = &source[at + "super::".len()..];
            let used: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            // `super::*` in a test module, or a type re-exported by mod.rs.
            if !used.is_empty() && used.chars().next().unwrap().is_ascii_lowercase() {
                uses.insert(used);
            }
        }
        // A `use super::{a, b::C}` group names several modules.
        for (at, _) in source.match_indices("use super::{") {
            let rest = &source[at + "use super::{".len()..];
            let group = &rest[..rest.find("};").unwrap_or(rest.len())];
            for item in group.split(',') {
                let used = item.trim().split("::").next().unwrap_or("").trim();
                if !used.is_empty() && used.chars().next().unwrap().is_ascii_lowercase() {
                    uses.insert(used.to_string());
                }
            }
        }
        uses.remove(&name);
        modules.insert(name, uses);
    }
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    for uses in modules.values_mut() {
        uses.retain(|used| known.contains(used));
    }
    modules
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

#[test]
fn proto_modules_depend_on_each_other_without_loops() {
    let graph = proto_dependencies();
    assert!(graph.len() > 10, "found only {:?}", graph.keys());
    // The reading itself works: these edges are known to exist.
    assert!(graph["peer"].contains("channel"));
    assert!(graph["host"].contains("peer"));
    assert!(graph["delivery"].contains("host"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "modules of src/proto depend on each other in a loop: {}",
            cycle.join(" -> ")
        );
    }
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
