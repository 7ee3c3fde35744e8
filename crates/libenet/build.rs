//! ELF details of the shared library: the SONAME programs link against,
//! the unwinder linked inside, packed relocations, and the layout of its
//! code and read-only data (`link/hot-text.txt` at the workspace root).

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" {
        // Programs built against stock ENet record `libenet.so.7`.
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libenet.so.7");
        hot_text_first();
        unwinder_inside();
        packed_relative_relocations();
    }
    println!("cargo:rerun-if-changed=build.rs");
}

/// Links the unwinder the standard library calls into the library itself
/// (GCC's static `libgcc_eh.a`) rather than loading `libgcc_s.so.1`, so
/// the library needs only libc, as stock's does. The shipped library aborts
/// on a panic, so the unwinder only walks the stack for a panic message's
/// backtrace; loading `libgcc_s` for that cost every process about 96 KiB
/// of resident memory. `rustc` asks for `-lgcc_s`: a directory searched
/// first holds `libgcc_s.a`, a copy of `libgcc_eh.a`. Where the C compiler
/// has no `libgcc_eh.a`, or with `ENET_RS_STATIC_UNWIND=off`, the library
/// keeps `libgcc_s`.
fn unwinder_inside() {
    println!("cargo:rerun-if-env-changed=ENET_RS_STATIC_UNWIND");
    if matches!(
        std::env::var("ENET_RS_STATIC_UNWIND").as_deref(),
        Ok("off" | "0")
    ) {
        return;
    }
    let Some(archive) = compiler_file("libgcc_eh.a") else {
        return;
    };
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let dir = out.join("static-unwind");
    let link = dir.join("libgcc_s.a");
    std::fs::create_dir_all(&dir).expect("creating static-unwind");
    let _ = std::fs::remove_file(&link);
    std::fs::copy(&archive, &link).expect("copying libgcc_eh.a");
    println!("cargo:rustc-cdylib-link-arg=-L{}", dir.display());
}

/// Packs the library's relative relocations (DT_RELR) where the linker can
/// and the C library it links against can apply them (glibc 2.36 and
/// later, which name the version `GLIBC_ABI_DT_RELR`). Most of the
/// library's relocations are relative, and in the usual form each takes
/// 24 bytes that the dynamic linker reads at load: 113 KiB, resident in
/// every process that loads the library, where stock's whole image is 48
/// KiB. Packed, they take about 1 KiB. The linker records the version the
/// C library must have, so an older one refuses the library by name
/// instead of misloading it. `ENET_RS_PACK_RELOCS=off` at build time
/// leaves them unpacked.
fn packed_relative_relocations() {
    println!("cargo:rerun-if-env-changed=ENET_RS_PACK_RELOCS");
    if matches!(
        std::env::var("ENET_RS_PACK_RELOCS").as_deref(),
        Ok("off" | "0")
    ) || std::env::var("CARGO_CFG_TARGET_ENV").as_deref() != Ok("gnu")
    {
        return;
    }
    let libc_applies = compiler_file("libc.so.6")
        .and_then(|libc| std::fs::read(libc).ok())
        .is_some_and(|image| {
            image
                .windows(b"GLIBC_ABI_DT_RELR".len())
                .any(|window| window == b"GLIBC_ABI_DT_RELR")
        });
    if libc_applies && linker_packs() {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether the target's linker packs relative relocations: GNU ld 2.40
/// does for x86_64 but, for aarch64, ignores the option with a warning,
/// which the probe (an empty shared object) makes an error.
fn linker_packs() -> bool {
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    std::process::Command::new(target_compiler())
        .args(["-shared", "-nostdlib", "-Wl,--fatal-warnings"])
        .args(["-Wl,-z,pack-relative-relocs", "-x", "c", "/dev/null", "-o"])
        .arg(out.join("relr-probe.so"))
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// The C compiler that links the library: the target's, as the `cc` crate
/// would pick it.
fn target_compiler() -> String {
    let target = std::env::var("TARGET")
        .unwrap_or_default()
        .replace('-', "_");
    println!("cargo:rerun-if-env-changed=CC_{target}");
    println!("cargo:rerun-if-env-changed=CC");
    std::env::var(format!("CC_{target}"))
        .or_else(|_| std::env::var("CC"))
        .unwrap_or_else(|_| "cc".into())
}

/// The path of `name` among the files the target's C compiler links
/// with, if it has one.
fn compiler_file(name: &str) -> Option<std::path::PathBuf> {
    let output = std::process::Command::new(target_compiler())
        .arg(format!("-print-file-name={name}"))
        .output()
        .ok()?;
    let path = std::path::PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    // Without the file the compiler prints the bare name back.
    (path.is_absolute() && path.exists()).then_some(path)
}

/// Places the functions listed in `link/hot-text.txt` together at the start
/// of the library's text, through a linker script that describes `.text`
/// with them first and inserts it after `.init` (GNU ld and lld keep their
/// default layout for everything else). The kernel maps a shared
/// library's pages around each one touched (64 KiB at a time), so code the
/// engine runs, scattered among the DTLS and backtrace code it rarely
/// runs, kept most of the text resident. The code gets a segment of its
/// own starting on a 64 KiB boundary, so the list's first tier (what a
/// server keeping idle peers runs) fills as few of those windows as its
/// size needs. `ENET_RS_TEXT_ORDER=off` at build time leaves the linker's
/// own order and layout (for a linker without `INSERT`).
fn hot_text_first() {
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let list_path = std::path::Path::new(&manifest).join("../../link/hot-text.txt");
    println!("cargo:rerun-if-changed={}", list_path.display());
    println!("cargo:rerun-if-env-changed=ENET_RS_TEXT_ORDER");
    if matches!(
        std::env::var("ENET_RS_TEXT_ORDER").as_deref(),
        Ok("off" | "0")
    ) {
        return;
    }
    let list = std::fs::read_to_string(list_path).expect("link/hot-text.txt");
    let mut script = String::from("SECTIONS\n{\n  .text : {\n");
    // The C runtime's start-up code (`frame_dummy`, which the loader runs
    // as it loads the library) is not in the list, whose patterns name a
    // section per function: its object has one `.text` for everything.
    script += "    *crtbegin*.o(.text .text.*)\n";
    let patterns: Vec<&str> = list
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    for pattern in &patterns {
        // Cold parts of a function (and cold functions) come in
        // `.text.unlikely.` sections of the same name.
        script += &format!("    *(.text.{pattern} .text.unlikely.{pattern})\n");
    }
    // The rest in the linker's usual order, in the same output section:
    // one `.text`, as tools that read only that section's range (valgrind
    // attributes code to the library by it) expect.
    script += "    *(.text .text.*)\n  }\n}\nINSERT AFTER .init;\n";
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("OUT_DIR"));
    let path = out.join("hot-text.ld");
    std::fs::write(&path, script).expect("writing hot-text.ld");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-T,{}", path.display());
    cold_read_only_data_after_text(&out, &patterns);
    // The windows lie at 64 KiB boundaries of the address space. Code in a
    // segment of its own that starts on one keeps the list's first tier
    // (what a server keeping idle peers runs) in as few windows as its
    // size needs; otherwise where it started inside a window moved with
    // the size of the read-only data before it, and one more window (or
    // one less) came and went with unrelated changes.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,separate-code");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,max-page-size=0x10000");
}

/// Moves the read-only data a plain host never reads out of the segment
/// the loader reads, to a segment of its own after the code: the other
/// crates' constants (the DTLS stack's tables, the standard library's
/// strings), the unwinder's tables (`.eh_frame` and its index, read only
/// for a panic's backtrace) and the landing-pad tables. What stays before
/// the code is what every process reads: the dynamic symbols and
/// relocations, and the engine's own constants (its jump tables and
/// lookup tables, the names of its switches). The kernel maps file pages
/// around each one touched as far as the mapping goes, 64 KiB at a time,
/// and a whole large folio where the page cache holds one (a copy just
/// written by `cp` or `install` can hold the file's first 128 KiB as one):
/// in a mapping of 300 KiB, touching the symbols cost 64 KiB or 128 KiB,
/// where a segment of 28 KiB costs its size.
///
/// Link-time optimization compiles every crate into one object, so the
/// engine's constants are told apart by their sections' names (a section
/// per constant): those named in the engine crate (`4enet` followed by the
/// next path segment's length, `enet..` in a generic's arguments, `enet_`
/// for its exports), the jump and lookup tables of the functions the hot
/// list names (the standard library's among them), and the merged small
/// constants (`.rodata.cst*`). A literal's section names only a hash of its
/// crate, so the engine keeps the texts and tables it reads at run time in
/// statics (`src/named.rs`).
///
/// The code segment keeps the procedure linkage table:
/// `tests-c/check_idle_text.sh` checks the code is one segment, and that
/// an idle server leaves the moved data alone. The moved sections end on
/// a page, so the relocated data after them starts on one.
fn cold_read_only_data_after_text(out: &std::path::Path, hot_functions: &[&str]) {
    let mut script = String::from("SECTIONS\n{\n  .rodata : {\n    *(.rodata.cst*)\n");
    script += "    *(.rodata.*4enet[0-9]* .rodata.*enet..* .rodata.*enet_*)\n";
    for pattern in hot_functions {
        script += &format!("    *(.rodata.{pattern} .rodata..Lswitch.table.{pattern})\n");
    }
    script += "  }\n}\nINSERT BEFORE .init;\n";
    script += "SECTIONS\n{\n  .plt : { *(.plt) }\n  .rodata.cold : {\n    \
               *(.rodata .rodata.* .gnu.linkonce.r.*)\n  }\n  \
               .gcc_except_table : { *(.gcc_except_table .gcc_except_table.*) }\n  \
               .eh_frame_hdr : { *(.eh_frame_hdr) }\n  \
               .eh_frame : { KEEP(*(.eh_frame)) . = ALIGN(0x1000); }\n}\n\
               INSERT AFTER .fini;\n";
    let path = out.join("cold-rodata.ld");
    std::fs::write(&path, script).expect("writing cold-rodata.ld");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-T,{}", path.display());
}
