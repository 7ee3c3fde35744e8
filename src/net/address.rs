//! Address parsing, printing and lookup (filled in by the address work).
