//! Reads the stock ENet header with bindgen (clang computes the layout) and
//! writes two files into OUT_DIR:
//! - `stock.rs`: the stock bindings, to compare against;
//! - `checks.rs`: one assertion per struct size, alignment, field offset,
//!   enum value and integer constant bindgen saw, comparing ours to stock.
//!
//! Nothing here lists fields or values by hand: every item comes from the
//! header, so a field we lack fails to compile and a wrong offset fails a test.
//!
//! Built for Windows (`--target x86_64-pc-windows-gnu`), clang reads the same
//! stock headers as x86_64-w64-mingw32 does: `enet.h` then includes stock's
//! `win32.h`, and `<winsock2.h>` comes from mingw-w64's headers. Linux's
//! `/usr/include` must not be searched then, so the stock ENet headers are
//! copied into OUT_DIR and clang's default system directories are dropped.
//! The Windows checks are the Linux ones plus what only Windows can check:
//! the fields of `fd_set` (ENetSocketSet; libc hides Linux's) and the value
//! of `ENET_SOCKET_NULL` (`INVALID_SOCKET`, a cast bindgen cannot read as a
//! macro, so clang evaluates it as a constant).

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use bindgen::callbacks::{EnumVariantValue, FieldInfo, ParseCallbacks};
use bindgen::FieldVisibilityKind;

const STOCK_HEADER_DIR: &str = "/usr/include";
/// Where mingw-w64's Windows headers live (Debian's mingw-w64-x86-64-dev);
/// `LAYOUT_CHECK_MINGW_INCLUDE` overrides it.
const MINGW_INCLUDE_DIR: &str = "/usr/x86_64-w64-mingw32/include";
/// The one Windows target whose layout we prove.
const WINDOWS_TARGET: &str = "x86_64-pc-windows-gnu";
/// Clang's name for it.
const WINDOWS_CLANG_TARGET: &str = "x86_64-w64-mingw32";
/// A constant clang evaluates for us: stock's `ENET_SOCKET_NULL` on Windows
/// (`INVALID_SOCKET`, all ones), as a `long long`: bindgen hands on only
/// values that fit an i64, and every value check compares as i64.
const WINDOWS_SOCKET_NULL: &str = "ENET_LAYOUT_CHECK_SOCKET_NULL";

#[derive(Default, Debug)]
struct Seen {
    /// (C struct or union name, field name)
    fields: BTreeSet<(String, String)>,
    /// (C enum name, variant name, value)
    variants: BTreeSet<(String, String, i64)>,
    /// (macro or anonymous-enum constant name, value)
    constants: BTreeSet<(String, i64)>,
    /// Every file clang read through an `#include`.
    included: BTreeSet<String>,
}

#[derive(Debug)]
struct Recorder(Rc<RefCell<Seen>>);

impl ParseCallbacks for Recorder {
    fn field_visibility(&self, info: FieldInfo<'_>) -> Option<FieldVisibilityKind> {
        self.0
            .borrow_mut()
            .fields
            .insert((info.type_name.to_string(), info.field_name.to_string()));
        None
    }

    fn enum_variant_name(
        &self,
        enum_name: Option<&str>,
        variant: &str,
        value: EnumVariantValue,
    ) -> Option<String> {
        let value = match value {
            EnumVariantValue::Boolean(b) => i64::from(b),
            EnumVariantValue::Signed(v) => v,
            EnumVariantValue::Unsigned(v) => v as i64,
        };
        let enum_name = enum_name
            .unwrap_or("")
            .trim_start_matches("enum ")
            .to_string();
        self.0
            .borrow_mut()
            .variants
            .insert((enum_name, variant.to_string(), value));
        None
    }

    fn include_file(&self, filename: &str) {
        self.0.borrow_mut().included.insert(filename.to_string());
    }

    fn int_macro(&self, name: &str, value: i64) -> Option<bindgen::callbacks::IntKind> {
        self.0
            .borrow_mut()
            .constants
            .insert((name.to_string(), value));
        None
    }
}

/// Our name for a stock C type: the typedef name, i.e. without the tag's `_`.
fn our_type(stock: &str) -> String {
    stock.trim_start_matches('_').to_string()
}

/// Our name for a field: bindgen spells the C field `type` as `type_`.
fn our_field(field: &str) -> &str {
    if field == "type_" {
        "r#type"
    } else {
        field
    }
}

/// Whether this build is for Windows (the one Windows target we support),
/// from cargo's description of the target.
fn building_for_windows() -> bool {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("windows") {
        return false;
    }
    let target = std::env::var("TARGET").unwrap_or_default();
    assert_eq!(
        target, WINDOWS_TARGET,
        "layout-check proves the Windows ABI for {WINDOWS_TARGET} only"
    );
    true
}

/// Copies stock's `enet/*.h` into `dir/enet/`, so clang can be given them
/// without the rest of Linux's `/usr/include`.
fn copy_stock_headers(dir: &Path) {
    let from = Path::new(STOCK_HEADER_DIR).join("enet");
    let to = dir.join("enet");
    std::fs::create_dir_all(&to).unwrap();
    let entries = std::fs::read_dir(&from).unwrap_or_else(|error| {
        panic!(
            "cannot read {} ({error}): is libenet-dev installed?",
            from.display()
        )
    });
    for entry in entries {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "h") {
            std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
        }
    }
    assert!(
        to.join("win32.h").is_file(),
        "stock's enet/win32.h is missing from {}",
        from.display()
    );
}

/// The clang arguments that make it read stock's headers as mingw-w64's
/// x86_64 compiler does, from a copy in `stock` and mingw-w64's headers only.
fn windows_clang_args(stock: &Path) -> Vec<String> {
    println!("cargo:rerun-if-env-changed=LAYOUT_CHECK_MINGW_INCLUDE");
    let mingw = std::env::var("LAYOUT_CHECK_MINGW_INCLUDE")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(MINGW_INCLUDE_DIR));
    assert!(
        mingw.join("winsock2.h").is_file(),
        "no winsock2.h in {} (apt-get install mingw-w64-x86-64-dev, or set LAYOUT_CHECK_MINGW_INCLUDE)",
        mingw.display()
    );
    copy_stock_headers(stock);
    vec![
        format!("--target={WINDOWS_CLANG_TARGET}"),
        // Clang's own headers (stddef.h, ...) stay; the host's /usr/include,
        // which clang's MinGW driver would add, goes.
        "-nostdlibinc".to_string(),
        "-isystem".to_string(),
        mingw.display().to_string(),
        format!("-I{}", stock.display()),
    ]
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={STOCK_HEADER_DIR}/enet");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let windows = building_for_windows();
    // Where the Windows build reads its copy of the stock headers from.
    let stock_copy = windows.then(|| out.join("stock-include"));
    let seen = Rc::new(RefCell::new(Seen::default()));
    let builder = if windows {
        bindgen::Builder::default()
            .header_contents(
                "stock.h",
                &format!(
                    "#include <enet/enet.h>\n#include <enet/time.h>\n\
                     static const long long {WINDOWS_SOCKET_NULL} = (long long) ENET_SOCKET_NULL;\n"
                ),
            )
            // bindgen asks the clang binary, given these arguments, for its
            // system directories: mingw-w64's and clang's own, as intended.
            .clang_args(windows_clang_args(stock_copy.as_deref().unwrap()))
    } else {
        bindgen::Builder::default()
            .header_contents(
                "stock.h",
                "#include <enet/enet.h>\n#include <enet/time.h>\n",
            )
            .clang_arg(format!("-I{STOCK_HEADER_DIR}"))
    };
    let bindings = builder
        .allowlist_type("_?ENet.*")
        .allowlist_var("ENET_.*")
        .parse_callbacks(Box::new(Recorder(seen.clone())))
        .generate()
        .expect("bindgen could not read the stock ENet header (is libenet-dev installed?)");
    bindings.write_to_file(out.join("stock.rs")).unwrap();

    let seen = seen.borrow();
    if windows {
        assert_windows_headers_only(&seen.included);
    }
    let mut checks = String::new();

    // Every struct or union with fields: size, alignment, each field offset.
    let types: BTreeSet<&str> = seen
        .fields
        .iter()
        .map(|(ty, _)| ty.as_str())
        .filter(|ty| ty.trim_start_matches('_').starts_with("ENet"))
        .collect();
    writeln!(
        checks,
        "pub fn layout_checks() -> Vec<LayoutCheck> {{ vec!["
    )
    .unwrap();
    for ty in &types {
        let ours = our_type(ty);
        writeln!(
            checks,
            "LayoutCheck {{ what: \"sizeof {ours}\", ours: core::mem::size_of::<enet::abi::{ours}>(), stock: core::mem::size_of::<stock::{ty}>() }},"
        )
        .unwrap();
        writeln!(
            checks,
            "LayoutCheck {{ what: \"alignof {ours}\", ours: core::mem::align_of::<enet::abi::{ours}>(), stock: core::mem::align_of::<stock::{ty}>() }},"
        )
        .unwrap();
        for (_, field) in seen.fields.iter().filter(|(t, _)| t == ty) {
            writeln!(
                checks,
                "LayoutCheck {{ what: \"offsetof {ours}.{field}\", ours: core::mem::offset_of!(enet::abi::{ours}, {}), stock: core::mem::offset_of!(stock::{ty}, {}) }},",
                our_field(field),
                field
            )
            .unwrap();
            // Field sizes too, so a field of the right offset but wrong width fails.
            writeln!(
                checks,
                "LayoutCheck {{ what: \"sizeof {ours}.{field}\", ours: field_size(|v: &enet::abi::{ours}| core::ptr::addr_of!(v.{})), stock: field_size(|v: &stock::{ty}| core::ptr::addr_of!(v.{})) }},",
                our_field(field),
                field
            )
            .unwrap();
        }
    }
    // Typedefs without fields that programs still size.
    for (ours, stock) in [
        ("ENetSocket", "ENetSocket"),
        ("ENetSocketSet", "ENetSocketSet"),
        ("ENetVersion", "ENetVersion"),
        ("ENetPeerState", "ENetPeerState"),
        ("ENetEventType", "ENetEventType"),
        ("ENetSocketType", "ENetSocketType"),
        ("ENetSocketOption", "ENetSocketOption"),
        ("ENetSocketShutdown", "ENetSocketShutdown"),
        ("ENetChecksumCallback", "ENetChecksumCallback"),
        ("ENetInterceptCallback", "ENetInterceptCallback"),
        ("ENetPacketFreeCallback", "ENetPacketFreeCallback"),
    ] {
        writeln!(
            checks,
            "LayoutCheck {{ what: \"sizeof {ours}\", ours: core::mem::size_of::<enet::abi::{ours}>(), stock: core::mem::size_of::<stock::{stock}>() }},"
        )
        .unwrap();
    }
    if windows {
        windows_layout_checks(&mut checks, &seen);
    }
    writeln!(checks, "] }}").unwrap();

    // Every named enum variant and every integer constant.
    writeln!(checks, "pub fn value_checks() -> Vec<ValueCheck> {{ vec![").unwrap();
    for (enum_name, variant, value) in &seen.variants {
        // On Windows clang reads a copy of the stock headers: name the file
        // it copies, as on Linux.
        let enum_name = &match &stock_copy {
            Some(copy) => enum_name.replace(&copy.display().to_string(), STOCK_HEADER_DIR),
            None => enum_name.clone(),
        };
        let named_enet_enum = enum_name.trim_start_matches('_').starts_with("ENet");
        let anonymous_enet_enum = enum_name.contains("/enet/") && variant.starts_with("ENET_");
        if !named_enet_enum && !anonymous_enet_enum {
            continue; // system headers' enums come along with <enet/enet.h>
        }
        let ours = if anonymous_enet_enum {
            // Anonymous enums hold plain constants.
            format!("enet::abi::{variant} as i64")
        } else {
            format!("enet::abi::{}::{variant} as i64", our_type(enum_name))
        };
        writeln!(
            checks,
            "ValueCheck {{ what: \"{enum_name}::{variant}\", ours: {ours}, stock: {value} }},"
        )
        .unwrap();
    }
    for (name, value) in &seen.constants {
        if name.starts_with("ENET_") && !name.starts_with("ENET_TIME_OVERFLOW") {
            writeln!(
                checks,
                "ValueCheck {{ what: \"{name}\", ours: enet::abi::{name} as i64, stock: {value} }},"
            )
            .unwrap();
        }
    }
    if windows {
        writeln!(
            checks,
            "ValueCheck {{ what: \"ENET_SOCKET_NULL\", ours: enet::abi::ENET_SOCKET_NULL as i64, stock: stock::{WINDOWS_SOCKET_NULL} as i64 }},"
        )
        .unwrap();
    }
    writeln!(checks, "] }}").unwrap();
    std::fs::write(out.join("checks.rs"), checks).unwrap();
}

/// Windows only: proves clang read no header of the Linux host (under
/// `/usr/include`), and did read stock's win32.h (from the copy) and
/// mingw-w64's winsock2.h.
fn assert_windows_headers_only(included: &BTreeSet<String>) {
    let host: Vec<&String> = included
        .iter()
        .filter(|file| file.starts_with(&format!("{STOCK_HEADER_DIR}/")))
        .collect();
    assert!(
        host.is_empty(),
        "clang read Linux headers while laying out for Windows: {host:?}"
    );
    for wanted in ["/stock-include/enet/win32.h", "/winsock2.h"] {
        assert!(
            included.iter().any(|file| file.ends_with(wanted)),
            "clang did not read *{wanted}; it read {included:?}"
        );
    }
}

/// Windows only: ENetSocketSet is WinSock's `fd_set`, whose fields are
/// public (Linux's libc keeps its `fd_set` fields private), so its layout is
/// checked field by field as the ENet structs are; and the platform
/// typedefs' alignment too.
fn windows_layout_checks(checks: &mut String, seen: &Seen) {
    for ours in ["ENetSocket", "ENetSocketSet"] {
        writeln!(
            checks,
            "LayoutCheck {{ what: \"alignof {ours}\", ours: core::mem::align_of::<enet::abi::{ours}>(), stock: core::mem::align_of::<stock::{ours}>() }},"
        )
        .unwrap();
    }
    let fd_set_fields: Vec<&str> = seen
        .fields
        .iter()
        .filter(|(ty, _)| ty == "fd_set")
        .map(|(_, field)| field.as_str())
        .collect();
    assert!(
        !fd_set_fields.is_empty(),
        "bindgen saw no fields of fd_set in mingw-w64's winsock2.h"
    );
    for field in fd_set_fields {
        writeln!(
            checks,
            "LayoutCheck {{ what: \"offsetof ENetSocketSet.{field}\", ours: core::mem::offset_of!(enet::abi::ENetSocketSet, {field}), stock: core::mem::offset_of!(stock::fd_set, {field}) }},"
        )
        .unwrap();
        writeln!(
            checks,
            "LayoutCheck {{ what: \"sizeof ENetSocketSet.{field}\", ours: field_size(|v: &enet::abi::ENetSocketSet| core::ptr::addr_of!(v.{field})), stock: field_size(|v: &stock::fd_set| core::ptr::addr_of!(v.{field})) }},"
        )
        .unwrap();
    }
}
