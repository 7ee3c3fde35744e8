//! Texts the engine reads at run time, each kept in a static of its own.
//!
//! The shared library's build (`crates/libenet/build.rs`) keeps the
//! engine's constants in the segment every process reads and moves the
//! rest of the read-only data after the code, where one read maps a 64 KiB
//! window of it. It tells the engine's apart by their sections' names: a
//! static's section names its path in the engine, a literal's only a hash.
//! So a table the engine indexes at run time is a `static`, and a text it
//! reads or hands to the C library (an environment variable's name, a
//! symbol's) comes from these macros.

/// A byte-string literal as a `&'static str` whose bytes are a static of
/// the engine's (a `const` context may use it).
macro_rules! named_text {
    ($text:literal) => {{
        static TEXT: [u8; $text.len()] = *$text;
        match core::str::from_utf8(&TEXT) {
            Ok(text) => text,
            Err(_) => panic!("named_text! takes UTF-8"),
        }
    }};
}

/// A byte-string literal ending in NUL as a `&'static CStr` whose bytes are
/// a static of the engine's. (Only some systems' builds look a symbol up.)
#[allow(unused_macros)]
macro_rules! named_c_text {
    ($text:literal) => {{
        static TEXT: [u8; $text.len()] = *$text;
        match core::ffi::CStr::from_bytes_with_nul(&TEXT) {
            Ok(text) => text,
            Err(_) => panic!("named_c_text! takes one NUL, at the end"),
        }
    }};
}
