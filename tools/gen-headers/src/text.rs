//! The two things cbindgen cannot be told, done on the text it wrote.
//!
//! 1. ENet's tag convention, `typedef struct _ENetPeer { ... } ENetPeer;`.
//!    Programs rely on the tags (`typedef struct _ENetPeer ENetPeer;`,
//!    `struct _ENetHost;` forward declarations), but cbindgen writes one
//!    name for both tag and typedef. After `struct`, `union` or `enum` (and
//!    the optional packed-attribute macro), a name of this header's own
//!    types gets a leading `_`; typedef names and other headers' types are
//!    left alone.
//! 2. No comma after an enum's last enumerator: cbindgen always writes one,
//!    which C89 and C++98 reject under `-pedantic` (stock compiles there).

use std::collections::HashSet;

/// Renames the tags of `own` types in `text`. Every own type must have its
/// declaration (`typedef struct NAME`) in `text`, or this fails.
pub fn underscore_tags(
    text: &str,
    own: &HashSet<String>,
    packed: Option<&str>,
) -> Result<String, String> {
    let mut out = String::with_capacity(text.len() + 64);
    let mut declared: HashSet<&str> = HashSet::new();
    // After `struct`/`union`/`enum`: whether `typedef` came just before it.
    let mut after_keyword: Option<bool> = None;
    let mut previous_word = "";
    let mut rest = text;
    while let Some(start) = rest.find(is_ident_start) {
        let gap = &rest[..start];
        let after = &rest[start..];
        let length = after
            .find(|c: char| !is_ident_char(c))
            .unwrap_or(after.len());
        let word = &after[..length];
        rest = &after[length..];
        out.push_str(gap);

        let adjacent = gap.chars().all(|c| c == ' ');
        if !adjacent {
            after_keyword = None;
            previous_word = "";
        }
        match after_keyword {
            Some(_) if Some(word) == packed => {
                out.push_str(word);
                continue;
            }
            Some(is_declaration) if own.contains(word) => {
                if is_declaration {
                    declared.insert(word);
                }
                out.push('_');
            }
            _ => {}
        }
        after_keyword = match word {
            "struct" | "union" | "enum" => Some(previous_word == "typedef"),
            _ => None,
        };
        out.push_str(word);
        previous_word = word;
    }
    out.push_str(rest);

    let mut undeclared: Vec<&str> = own
        .iter()
        .map(String::as_str)
        .filter(|name| !declared.contains(name))
        .collect();
    undeclared.sort_unstable();
    if !undeclared.is_empty() {
        return Err(format!(
            "no `typedef struct/union/enum NAME` declaration found for: {}",
            undeclared.join(", ")
        ));
    }
    Ok(out)
}

/// Removes the comma after the last enumerator of every enum in `text`
/// (cbindgen writes each enumerator on its own line, the body between a
/// `typedef enum ...` line and a line starting with `}`).
pub fn drop_final_enum_commas(text: &str) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut in_enum = false;
    for line in text.split_inclusive('\n') {
        if line.starts_with("typedef enum") || line.starts_with("enum ") {
            in_enum = true;
        } else if in_enum && line.starts_with('}') {
            in_enum = false;
            if let Some(last) = lines.iter_mut().rev().find(|l| !l.trim().is_empty()) {
                let body = last.trim_end();
                if let Some(without) = body.strip_suffix(',') {
                    let ending = &last[body.len()..];
                    *last = format!("{without}{ending}");
                }
            }
        }
        lines.push(line.to_owned());
    }
    lines.concat()
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

#[cfg(test)]
mod tests {
    use super::*;

    fn own(names: &[&str]) -> HashSet<String> {
        names.iter().map(|name| name.to_string()).collect()
    }

    #[test]
    fn tags_get_an_underscore_and_typedef_names_do_not() {
        let text = "typedef struct Node\n{\n   struct Node *next;\n   Other other;\n} Node;\n\
                    typedef enum Kind\n{\n   A = 0,\n} Kind;\n\
                    void f(struct Node *node, enum Kind kind, struct Foreign *x);\n";
        let renamed = underscore_tags(text, &own(&["Node", "Kind"]), None).unwrap();
        assert_eq!(
            renamed,
            "typedef struct _Node\n{\n   struct _Node *next;\n   Other other;\n} Node;\n\
             typedef enum _Kind\n{\n   A = 0,\n} Kind;\n\
             void f(struct _Node *node, enum _Kind kind, struct Foreign *x);\n"
        );
    }

    #[test]
    fn the_packed_macro_may_sit_between_keyword_and_tag() {
        let text = "typedef struct PACKED Header\n{\n   int a;\n} Header;\n";
        let renamed = underscore_tags(text, &own(&["Header"]), Some("PACKED")).unwrap();
        assert_eq!(
            renamed,
            "typedef struct PACKED _Header\n{\n   int a;\n} Header;\n"
        );
    }

    #[test]
    fn only_the_last_enumerator_loses_its_comma() {
        let text = "typedef enum _Kind\n{\n   A = 0,\n   B = (1 << 1),\n} Kind;\n\
                    typedef struct _S\n{\n   int a;\n} S;\n";
        assert_eq!(
            drop_final_enum_commas(text),
            "typedef enum _Kind\n{\n   A = 0,\n   B = (1 << 1)\n} Kind;\n\
             typedef struct _S\n{\n   int a;\n} S;\n"
        );
    }

    #[test]
    fn a_type_without_declaration_is_an_error() {
        let text = "struct Node *f(void);\n";
        let error = underscore_tags(text, &own(&["Node"]), None).unwrap_err();
        assert!(error.contains("Node"), "{error}");
    }
}
