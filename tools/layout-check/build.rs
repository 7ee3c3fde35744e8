//! Reads the stock ENet header with bindgen (clang computes the layout) and
//! writes two files into OUT_DIR:
//! - `stock.rs`: the stock bindings, to compare against;
//! - `checks.rs`: one assertion per struct size, alignment, field offset,
//!   enum value and integer constant bindgen saw, comparing ours to stock.
//!
//! Nothing here lists fields or values by hand: every item comes from the
//! header, so a field we lack fails to compile and a wrong offset fails a test.
//!
//! Built for another system (`--target`, one of `cross_system`'s: 32- and
//! 64-bit Windows, and Linux on i686, armhf, s390x and aarch64), clang reads
//! the same stock headers as that system's C compiler does: for Windows,
//! `enet.h` includes stock's `win32.h`, and `<winsock2.h>` comes from
//! mingw-w64's headers; for Linux, the target's C library headers from
//! Debian's cross packages, with the target's pointer width, alignment and
//! byte order. The build machine's `/usr/include` must not be searched then,
//! so the stock ENet headers are copied into OUT_DIR and clang's default
//! system directories are dropped.
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
/// `LAYOUT_CHECK_MINGW_INCLUDE` overrides where mingw-w64's Windows headers
/// are read from (the default is the target's, below).
/// A constant clang evaluates for us: stock's `ENET_SOCKET_NULL` on Windows
/// (`INVALID_SOCKET`, all ones), as a `long long`: bindgen hands on only
/// values that fit an i64, and every value check compares as i64.
const WINDOWS_SOCKET_NULL: &str = "ENET_LAYOUT_CHECK_SOCKET_NULL";

/// A system other than the build machine's, whose C layout clang computes
/// from stock's headers and that system's own C library headers.
struct CrossSystem {
    /// Clang's name for the target.
    clang_target: &'static str,
    /// The target's C library headers (Debian's `libc6-dev-*-cross` or
    /// `mingw-w64-*-dev`).
    include_dir: &'static str,
    /// The Debian package that installs `include_dir`.
    package: &'static str,
    windows: bool,
}

/// The targets whose layout we prove besides the build machine's own, by
/// Rust's target name. Every one reads stock's headers as that target's C
/// compiler does (`unix.h` or `win32.h`, its pointer and `size_t` width,
/// its alignment rules).
fn cross_system(target: &str) -> Option<CrossSystem> {
    let (clang_target, include_dir, package, windows) = match target {
        "x86_64-pc-windows-gnu" => (
            "x86_64-w64-mingw32",
            "/usr/x86_64-w64-mingw32/include",
            "mingw-w64-x86-64-dev",
            true,
        ),
        "i686-pc-windows-gnu" => (
            "i686-w64-mingw32",
            "/usr/i686-w64-mingw32/include",
            "mingw-w64-i686-dev",
            true,
        ),
        "aarch64-unknown-linux-gnu" => (
            "aarch64-linux-gnu",
            "/usr/aarch64-linux-gnu/include",
            "libc6-dev-arm64-cross",
            false,
        ),
        "i686-unknown-linux-gnu" => (
            "i686-linux-gnu",
            "/usr/i686-linux-gnu/include",
            "libc6-dev-i386-cross",
            false,
        ),
        "armv7-unknown-linux-gnueabihf" => (
            "armv7-linux-gnueabihf",
            "/usr/arm-linux-gnueabihf/include",
            "libc6-dev-armhf-cross",
            false,
        ),
        "s390x-unknown-linux-gnu" => (
            "s390x-linux-gnu",
            "/usr/s390x-linux-gnu/include",
            "libc6-dev-s390x-cross",
            false,
        ),
        _ => return None,
    };
    Some(CrossSystem {
        clang_target,
        include_dir,
        package,
        windows,
    })
}

/// The system this build lays out for: the build machine's own (`None`),
/// or one of `cross_system`'s.
fn target_system() -> Option<CrossSystem> {
    let target = std::env::var("TARGET").unwrap_or_default();
    let host = std::env::var("HOST").unwrap_or_default();
    if target == host {
        return None;
    }
    Some(cross_system(&target).unwrap_or_else(|| {
        panic!("layout-check knows no C headers for {target}: add it to cross_system")
    }))
}

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
    for wanted in ["unix.h", "win32.h"] {
        assert!(
            to.join(wanted).is_file(),
            "stock's enet/{wanted} is missing from {}",
            from.display()
        );
    }
}

/// The clang arguments that make it read stock's headers as the target's C
/// compiler does, from a copy in `stock` and the target's C library headers
/// only.
fn cross_clang_args(system: &CrossSystem, stock: &Path) -> Vec<String> {
    println!("cargo:rerun-if-env-changed=LAYOUT_CHECK_MINGW_INCLUDE");
    let include = match std::env::var("LAYOUT_CHECK_MINGW_INCLUDE") {
        Ok(dir) if system.windows => PathBuf::from(dir),
        _ => PathBuf::from(system.include_dir),
    };
    let probe = if system.windows {
        "winsock2.h"
    } else {
        "sys/socket.h"
    };
    assert!(
        include.join(probe).is_file(),
        "no {probe} in {} (apt-get install {})",
        include.display(),
        system.package
    );
    copy_stock_headers(stock);
    vec![
        format!("--target={}", system.clang_target),
        // Clang's own headers (stddef.h, ...) stay; the host's /usr/include,
        // which clang's driver would add, goes.
        "-nostdlibinc".to_string(),
        "-isystem".to_string(),
        include.display().to_string(),
        format!("-I{}", stock.display()),
    ]
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={STOCK_HEADER_DIR}/enet");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let system = target_system();
    let windows = system.as_ref().is_some_and(|system| system.windows);
    // Where a cross build reads its copy of the stock headers from.
    let stock_copy = system.is_some().then(|| out.join("stock-include"));
    let seen = Rc::new(RefCell::new(Seen::default()));
    let builder = if let Some(system) = &system {
        let socket_null = if windows {
            format!(
                "static const long long {WINDOWS_SOCKET_NULL} = (long long) ENET_SOCKET_NULL;\n"
            )
        } else {
            String::new()
        };
        bindgen::Builder::default()
            .header_contents(
                "stock.h",
                &format!("#include <enet/enet.h>\n#include <enet/time.h>\n{socket_null}"),
            )
            // bindgen asks the clang binary, given these arguments, for its
            // system directories: the target's and clang's own, as intended.
            .clang_args(cross_clang_args(system, stock_copy.as_deref().unwrap()))
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
    if let Some(system) = &system {
        assert_target_headers_only(system, &seen.included);
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
        // A cross build's clang reads a copy of the stock headers: name the
        // file it copies, as a native build does.
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

/// A cross build only: proves clang read no header of the build machine
/// (under `/usr/include`), and did read stock's platform header (from the
/// copy) and the target's own socket header.
fn assert_target_headers_only(system: &CrossSystem, included: &BTreeSet<String>) {
    let host: Vec<&String> = included
        .iter()
        .filter(|file| file.starts_with(&format!("{STOCK_HEADER_DIR}/")))
        .collect();
    assert!(
        host.is_empty(),
        "clang read the build machine's headers while laying out for {}: {host:?}",
        system.clang_target
    );
    let wanted = if system.windows {
        ["/stock-include/enet/win32.h", "/winsock2.h"]
    } else {
        ["/stock-include/enet/unix.h", "/sys/socket.h"]
    };
    for wanted in wanted {
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
