//! `size-report LIBRARY [ROWS]`: what a built library is made of: its size
//! once stripped, its code per crate (ROWS rows, 25 unless given) and its
//! sections. Works on the unstripped ELF shared library (libenet.so) and on
//! the unstripped PE DLL (enet.dll); it reads symbols, so give it the
//! build's own output, not a stripped copy.
//!
//! A crate is the first path segment of a demangled Rust symbol (for
//! `<Type as Trait>::f`, the type's; for a primitive type, the trait's).
//! Symbols with no path (C and assembly from ring and the C runtime, and
//! our own `#[no_mangle]` exports) are one row. ELF symbols carry their
//! sizes (nm -S); PE symbols have none, so a symbol's size there is the gap
//! to the next symbol in `.text`, which also counts padding and code that
//! has no symbol of its own.
//!
//! Tools: binutils for ELF, mingw-w64's for PE (x86_64-w64-mingw32- or
//! i686-w64-mingw32-, chosen from the file's format). NM, STRIP and SIZE
//! in the environment override the choice (e.g. llvm-nm for another ELF
//! architecture).

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use crate::process::{command, execute, fail, found, output, user_path, Exit};

const STEP: &str = "size-report";

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Elf,
    Pe,
}

/// The row of the symbols that have no crate.
const NO_CRATE: &str = "[C, asm, #[no_mangle]]";

pub fn run(arguments: &[String]) -> Result<(), Exit> {
    let (named, rows) = match arguments {
        [library] => (library, 25),
        [library, rows] => match rows.parse::<usize>() {
            Ok(rows) => (library, rows),
            Err(_) => return Err(fail(STEP, 2, format!("ROWS is a count, not {rows}"))),
        },
        _ => {
            eprintln!("usage: cargo xtask size-report LIBRARY [ROWS]");
            return Err(Exit(1));
        }
    };
    let library = user_path(named);
    let bytes = fs::read(&library).map_err(|_| fail(STEP, 1, format!("no file {named}")))?;
    let (format, prefix) =
        format_of(&bytes).map_err(|message| fail(STEP, 1, format!("{named}{message}")))?;
    let tool = |variable: &str, name: &str| {
        std::env::var(variable).unwrap_or_else(|_| format!("{prefix}{name}"))
    };
    let (nm, strip, size) = (
        tool("NM", "nm"),
        tool("STRIP", "strip"),
        tool("SIZE", "size"),
    );
    for tool in [&nm, &strip, &size] {
        if !found(tool) {
            return Err(fail(STEP, 1, format!("missing {tool}")));
        }
    }

    let work = Scratch::new()?;
    let stripped_path = work.0.join("stripped");
    execute(command(&strip).arg("-o").arg(&stripped_path).arg(&library))?;
    let stripped = file_size(&stripped_path)?;
    let kind = if format == Format::Elf { "elf" } else { "pe" };
    println!("{named} ({kind})");
    println!(
        "file size: {} bytes; stripped ({strip}): {stripped} bytes ({:.2} MiB)",
        bytes.len(),
        stripped as f64 / 1_048_576.0
    );

    // The text section's bounds (the last PE symbol's size runs to its end).
    let sections = output(command(&size).args(["-A", "-x"]).arg(&library))?;
    let (text_start, text_size) = sections
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .find(|fields| fields.first() == Some(&".text") && fields.len() >= 3)
        .and_then(|fields| Some((hex(fields[2])?, hex(fields[1])?)))
        .ok_or_else(|| fail(STEP, 1, format!("no .text in {named}")))?;

    let symbols = match format {
        Format::Elf => elf_symbols(&output(
            command(&nm)
                .args(["-S", "--size-sort", "-C", "--defined-only"])
                .arg(&library),
        )?),
        Format::Pe => pe_symbols(
            &output(
                command(&nm)
                    .args(["-n", "-C", "--defined-only"])
                    .arg(&library),
            )?,
            text_start,
            text_start + text_size,
        ),
    };
    if symbols.is_empty() {
        return Err(fail(
            STEP,
            1,
            format!("no code symbols in {named} (stripped?)"),
        ));
    }

    let mut per_crate: HashMap<&str, u64> = HashMap::new();
    for (bytes, name) in &symbols {
        *per_crate.entry(crate_of(name)).or_default() += bytes;
    }
    let total: u64 = symbols.iter().map(|(bytes, _)| bytes).sum();
    let mut crates: Vec<(u64, &str)> = per_crate
        .into_iter()
        .map(|(name, bytes)| (bytes, name))
        .collect();
    // Largest first; equal sizes in the order of their lines' bytes.
    crates.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| line(a).cmp(&line(b))));

    println!();
    let sizes = if format == Format::Pe {
        "sizes from address gaps"
    } else {
        "nm -S sizes"
    };
    println!("code per crate ({} symbols; {sizes}):", kind.to_uppercase());
    let percent = |bytes: u64| 100.0 * bytes as f64 / total as f64;
    for (bytes, name) in crates.iter().take(rows) {
        println!("  {bytes:9}  {:5.1}%  {name}", percent(*bytes));
    }
    if crates.len() > rows {
        let shown: u64 = crates.iter().take(rows).map(|(bytes, _)| bytes).sum();
        println!(
            "  {:9}  {:5.1}%  ({} more crates)",
            total - shown,
            percent(total - shown),
            crates.len() - rows
        );
    }
    println!("  {total:9}  total in symbols; .text is {text_size}");

    println!();
    println!("sections of the stripped file (bytes):");
    let stripped_sections = output(command(&size).args(["-A", "-d"]).arg(&stripped_path))?;
    for fields in stripped_sections
        .lines()
        .skip(2)
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
    {
        if fields.len() >= 2 && fields[0] != "Total" {
            println!(
                "  {:<16} {:9}",
                fields[0],
                fields[1].parse::<u64>().unwrap_or(0)
            );
        }
    }
    let debug: u64 = output(command(&size).args(["-A", "-d"]).arg(&library))?
        .lines()
        .map(|line| line.split_whitespace().collect::<Vec<_>>())
        .filter(|fields| {
            fields.len() >= 2
                && (fields[0].starts_with(".debug") || fields[0].starts_with(".zdebug"))
        })
        .filter_map(|fields| fields[1].parse::<u64>().ok())
        .sum();
    if debug > 0 {
        println!("  (debug sections in the unstripped file: {debug})");
    }
    Ok(())
}

/// A crate's row as a line of `size<TAB>name`, for ordering ties.
fn line((bytes, name): &(u64, &str)) -> String {
    format!("{bytes}\t{name}")
}

/// The file's format and its tools' prefix, or why it has none.
fn format_of(bytes: &[u8]) -> Result<(Format, &'static str), String> {
    if bytes.starts_with(b"\x7fELF") {
        return Ok((Format::Elf, ""));
    }
    if !bytes.starts_with(b"MZ") {
        return Err(" is neither ELF nor PE".to_owned());
    }
    // The machine field of the COFF header, after the PE signature whose
    // offset is at 0x3c: 0x8664 is x86_64, 0x14c is i386.
    let read = |at: usize, width: usize| {
        bytes
            .get(at..at + width)
            .map(|b| b.iter().rev().fold(0usize, |v, &x| v << 8 | x as usize))
    };
    let machine = read(0x3c, 4).and_then(|signature| read(signature + 4, 2));
    match machine {
        Some(0x8664) => Ok((Format::Pe, "x86_64-w64-mingw32-")),
        Some(0x14c) => Ok((Format::Pe, "i686-w64-mingw32-")),
        other => Err(format!(
            ": PE machine {:04x} not handled",
            other.unwrap_or(0)
        )),
    }
}

/// A hexadecimal number, with or without `0x`.
fn hex(text: &str) -> Option<u64> {
    u64::from_str_radix(text.trim_start_matches("0x"), 16).ok()
}

/// The code symbols of `nm -S --size-sort -C` output: size, demangled name.
fn elf_symbols(listing: &str) -> Vec<(u64, String)> {
    listing
        .lines()
        .filter_map(|line| {
            let mut fields = line.splitn(4, ' ');
            let (_, size, kind, name) = (
                fields.next()?,
                fields.next()?,
                fields.next()?,
                fields.next()?,
            );
            matches!(kind, "t" | "T" | "w" | "W" | "i" | "u")
                .then(|| Some((hex(size)?, name.to_owned())))?
        })
        .collect()
}

/// The code symbols of `nm -n -C` output for a PE file: every symbol at an
/// address in `.text` (`start..end`), in address order, sized by the gap to
/// the next; aliases at one address count once (the last one named gets
/// the code).
fn pe_symbols(listing: &str, start: u64, end: u64) -> Vec<(u64, String)> {
    let mut symbols = Vec::new();
    let mut last: Option<(u64, String)> = None;
    for line in listing.lines() {
        let mut fields = line.splitn(3, ' ');
        let (Some(address), Some(_), Some(name)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let Some(address) = hex(address) else {
            continue;
        };
        if address < start || address >= end {
            continue;
        }
        match &last {
            Some((previous, name)) if address > *previous => {
                symbols.push((address - previous, name.clone()))
            }
            None if address > start => {
                symbols.push((address - start, "(before the first symbol)".to_owned()))
            }
            _ => {}
        }
        last = Some((address, name.to_owned()));
    }
    if let Some((previous, name)) = last {
        symbols.push((end - previous, name));
    }
    symbols
}

/// The crate a demangled symbol's code belongs to.
fn crate_of(name: &str) -> &str {
    let mut s = name;
    // `<Self as Trait>::f` and `<Self>::f`: Self decides, unless it is a
    // primitive, slice, reference or pointer, which belong to no crate.
    if let Some(inner) = s.strip_prefix('<') {
        s = inner;
        while let Some(rest) = ["&mut ", "&", "*const ", "*mut ", "mut ", "dyn ", "[", "("]
            .iter()
            .find_map(|prefix| s.strip_prefix(prefix))
        {
            s = rest;
        }
        if let Some(at) = s.find(" as ") {
            if !s[..=at].contains("::") {
                let mut r#trait = &s[at + 4..];
                r#trait = r#trait
                    .strip_prefix("dyn ")
                    .or_else(|| r#trait.strip_prefix('&'))
                    .unwrap_or(r#trait);
                if r#trait.contains("::") {
                    s = r#trait;
                }
            }
        }
    }
    let identifier = s
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
        .map_or(s.len(), |(at, _)| at);
    let starts_well = s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
    if starts_well && s[identifier..].starts_with("::") {
        &s[..identifier]
    } else {
        NO_CRATE
    }
}

fn file_size(path: &Path) -> Result<u64, Exit> {
    fs::metadata(path)
        .map(|meta| meta.len())
        .map_err(|error| fail(STEP, 1, format!("{}: {error}", path.display())))
}

/// A scratch directory, removed when the report is done.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Self, Exit> {
        let path = std::env::temp_dir().join(format!("xtask-size-report.{}", std::process::id()));
        fs::create_dir_all(&path)
            .map_err(|error| fail(STEP, 1, format!("{}: {error}", path.display())))?;
        Ok(Self(path))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::crate_of;

    #[test]
    fn crates_of_symbols() {
        assert_eq!(crate_of("enet::proto::Host::service"), "enet");
        assert_eq!(
            crate_of("<enet::mem::Packet as core::ops::Drop>::drop"),
            "enet"
        );
        assert_eq!(crate_of("<&mut [u8] as std::io::Read>::read"), "std");
        assert_eq!(crate_of("<u32 as core::fmt::Display>::fmt"), "core");
        assert_eq!(crate_of("<dyn core::any::Any>::is"), "core");
        assert_eq!(crate_of("enet_host_service"), "[C, asm, #[no_mangle]]");
        assert_eq!(
            crate_of("<[T] as alloc::slice::hack::ConvertVec>::to_vec"),
            "alloc"
        );
        assert_eq!(crate_of("<(A, B) as Tuple>::f"), "[C, asm, #[no_mangle]]");
    }
}
