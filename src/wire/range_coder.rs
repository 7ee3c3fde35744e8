//! ENet's packet compressor: an adaptive order-2 PPM model driving a 32-bit
//! range coder, producing and accepting exactly the bytes of ENet 1.3.17's
//! `enet_range_coder_compress` / `enet_range_coder_decompress`.
//!
//! How it works:
//! - Each byte is predicted from the one or two bytes before it. Every such
//!   history ("context") is a node of the model that owns a binary tree of
//!   the bytes seen after it, with counts. A byte new to a context is
//!   announced by an *escape* and then coded in the next shorter context,
//!   down to the root (no history), where all 256 values keep a minimum
//!   count and so can always be coded.
//! - The model starts empty on every call and learns as it goes. The decoder
//!   repeats every update the encoder made, so both must run the same
//!   integer arithmetic in the same order, 16-bit and 8-bit wrap-arounds
//!   included: that is why the fields below keep stock's widths and the
//!   arithmetic on them wraps.
//! - There is no length field. After the last byte the encoder writes out
//!   just enough of the interval to pin it down; a decoder fed zeros past
//!   the input then reads a code at the very bottom of the interval, which
//!   is an escape in every context that codes one (escape slots come
//!   first), down to the root, which ends the data: a stream always decodes
//!   to exactly the bytes coded. (A stream of stock's can hold one byte
//!   more than its caller meant: the byte stock's compressor reads at an
//!   empty buffer after the first, which `ffi::range_coder` codes too.)
//! - All nodes come from one fixed table. When it is nearly full the model
//!   starts over, on both sides at the same byte.
//!
//! No input makes these functions panic: every node index is checked, and a
//! model that would need a node that does not exist makes the call fail (0)
//! instead, which is also how stock reports corrupt compressed data.

use core::num::NonZeroU16;

/// Nodes in the model table: plenty for one datagram at common MTUs.
const SYMBOL_CAPACITY: usize = 4096;

/// How many preceding bytes the longest context remembers.
const SUBCONTEXT_ORDER: usize = 2;

/// A byte creates at most one node in each context it visits (up to
/// `SUBCONTEXT_ORDER` subcontexts and the root), so the model restarts as
/// soon as no more than `SUBCONTEXT_ORDER` free nodes remain.
const RESTART_THRESHOLD: usize = SYMBOL_CAPACITY - SUBCONTEXT_ORDER;

/// The root context is always node 0; a `parent` of 0 means "the root".
const ROOT_NODE: usize = 0;

/// Once the top byte of the interval is settled it is shifted out.
const RANGE_TOP: u32 = 1 << 24;
/// The interval is never left narrower than this after a step, so dividing
/// it by any context total (kept below this) leaves at least 1.
const RANGE_BOTTOM: u32 = 1 << 16;

/// A context whose total grows past this is rescaled, keeping every total
/// safely below `RANGE_BOTTOM` (the margin absorbs one more update).
const TOTAL_LIMIT: u16 = (RANGE_BOTTOM - 0x100) as u16;

/// The escape count the root starts with (and never drops below).
const ROOT_ESCAPE_MINIMUM: u16 = 1;

/// Added to a subcontext's escape count each time a byte escapes from it:
/// small packets favour learning new bytes quickly.
const SUBCONTEXT_ESCAPE_DELTA: u16 = 5;

/// How one kind of context adapts its statistics.
#[derive(Debug, Clone, Copy)]
struct ContextRules {
    /// Added to a symbol's count (and its context's total) when coded.
    symbol_delta: u8,
    /// The count every byte value has in this context without being seen.
    /// Only the root has one, so only the root can code unseen bytes.
    symbol_minimum: u16,
    /// A symbol count above this (seen before the update) forces a rescale,
    /// so counts never overflow their byte.
    count_limit: u16,
}

const ROOT_RULES: ContextRules = ContextRules {
    symbol_delta: 3,
    symbol_minimum: 1,
    count_limit: 0xFF - 2 * 3 + 1,
};

const SUBCONTEXT_RULES: ContextRules = ContextRules {
    symbol_delta: 2,
    symbol_minimum: 0,
    count_limit: 0xFF - 2 * 2,
};

/// One node of the model: a symbol in its context's tree, and at the same
/// time the context formed by appending that symbol to its context.
#[derive(Debug, Clone, Copy, Default)]
struct Node {
    /// The byte this node stands for.
    value: u8,
    /// How often it was seen in its context (scaled).
    count: u8,
    /// `count` plus the counts of the left subtree: with the values below
    /// it, this gives the node's position in the cumulative distribution.
    under: u16,
    /// Forward offsets (in nodes) to the children; 0 means none. Children
    /// are always created after their parent, so offsets are positive.
    left: u16,
    right: u16,
    /// As a context: forward offset to its tree's first node, 0 if empty.
    symbols: u16,
    /// As a context: the escape count.
    escapes: u16,
    /// As a context: escapes plus all counts plus the minimums.
    total: u16,
    /// Index of the same byte's node in the next shorter context.
    parent: u16,
}

/// Why a call stops early; every one of these makes it return 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    /// The output buffer is full.
    OutputFull,
    /// The compressed data named a symbol its context does not have.
    UnknownSymbol,
    /// The model referenced a node that does not exist, or a division
    /// would have been by zero. Not reachable from the coding rules; kept
    /// as a checked failure instead of a panic.
    BrokenModel,
}

/// Where a new symbol hangs from its parent: the tree of a context's
/// symbols, or a left or right child in it.
#[derive(Debug, Clone, Copy)]
enum Branch {
    Symbols,
    Left,
    Right,
}

/// The outcome of looking a byte up in a context.
#[derive(Debug, Clone, Copy)]
struct Coded {
    /// The node of the byte (found or just created).
    symbol: usize,
    /// The byte.
    value: u8,
    /// Its cumulative position in the context, escapes not included.
    under: u16,
    /// Its count before this update; 0 for a byte new to a subcontext.
    count: u16,
}

/// Where the next node met along the context chain is recorded: the
/// model's `predicted` for the first, then the previous node's `parent`.
#[derive(Debug, Clone, Copy)]
enum Link {
    Predicted,
    ParentOf(usize),
}

/// ENet's adaptive range coder. Owns its model table, so one value can be
/// reused for any number of calls (each call starts from an empty model).
#[derive(Debug, Clone)]
pub struct RangeCoder {
    nodes: Vec<Node>,
    /// Index of the first unused node.
    next_free: usize,
    /// The context the next byte is predicted from.
    predicted: u16,
    /// How many bytes of history `predicted` holds (at most the order).
    order: usize,
    /// Scratch space for rescaling a tree without recursion.
    rescale_walk: Vec<u16>,
    rescale_sums: Vec<u16>,
}

impl Default for RangeCoder {
    fn default() -> Self {
        Self::new()
    }
}

impl RangeCoder {
    /// A coder with its table allocated (about 80 KiB).
    pub fn new() -> Self {
        RangeCoder {
            nodes: vec![Node::default(); SYMBOL_CAPACITY],
            next_free: 0,
            predicted: 0,
            order: 0,
            rescale_walk: Vec::with_capacity(SYMBOL_CAPACITY),
            rescale_sums: vec![0; SYMBOL_CAPACITY],
        }
    }

    /// Like [`RangeCoder::new`], but `None` instead of aborting when the
    /// memory cannot be had.
    pub fn try_new() -> Option<Self> {
        let mut nodes = Vec::new();
        nodes.try_reserve_exact(SYMBOL_CAPACITY).ok()?;
        nodes.resize(SYMBOL_CAPACITY, Node::default());
        let mut rescale_walk = Vec::new();
        rescale_walk.try_reserve_exact(SYMBOL_CAPACITY).ok()?;
        let mut rescale_sums = Vec::new();
        rescale_sums.try_reserve_exact(SYMBOL_CAPACITY).ok()?;
        rescale_sums.resize(SYMBOL_CAPACITY, 0);
        Some(RangeCoder {
            nodes,
            next_free: 0,
            predicted: 0,
            order: 0,
            rescale_walk,
            rescale_sums,
        })
    }

    /// Compresses the concatenation of `input` into `out`, returning the
    /// compressed length: 0 if the input is empty or the result does not
    /// fit. The split of the input into slices does not affect the result.
    pub fn compress(&mut self, input: &[&[u8]], out: &mut [u8]) -> usize {
        self.compress_parts(input.iter().copied(), out)
    }

    /// [`RangeCoder::compress`] over any sequence of slices.
    pub fn compress_parts<'a>(
        &mut self,
        input: impl IntoIterator<Item = &'a [u8]>,
        out: &mut [u8],
    ) -> usize {
        let bytes = input.into_iter().flat_map(|part| part.iter().copied());
        self.try_compress(bytes, out).unwrap_or(0)
    }

    /// Decompresses `input` into `out`, returning the decompressed length:
    /// 0 if the input is empty or corrupt, or the result does not fit.
    pub fn decompress(&mut self, input: &[u8], out: &mut [u8]) -> usize {
        if input.is_empty() {
            return 0;
        }
        self.try_decompress(input, out).unwrap_or(0)
    }

    fn try_compress(
        &mut self,
        bytes: impl Iterator<Item = u8>,
        out: &mut [u8],
    ) -> Result<usize, Failure> {
        self.restart()?;
        let mut encoder = Encoder::new(out);
        for value in bytes {
            self.encode_byte(value, &mut encoder)?;
            self.advance()?;
        }
        encoder.finish()
    }

    fn try_decompress(&mut self, input: &[u8], out: &mut [u8]) -> Result<usize, Failure> {
        self.restart()?;
        let mut decoder = Decoder::new(input);
        let mut written = 0;
        while let Some(value) = self.decode_byte(&mut decoder)? {
            let slot = out.get_mut(written).ok_or(Failure::OutputFull)?;
            *slot = value;
            written += 1;
            self.advance()?;
        }
        Ok(written)
    }

    /// Codes one byte: in each subcontext from the longest down, either the
    /// byte itself (done) or an escape; failing all, in the root.
    fn encode_byte(&mut self, value: u8, encoder: &mut Encoder<'_>) -> Result<(), Failure> {
        let mut link = Link::Predicted;
        let mut context = usize::from(self.predicted);
        while context != ROOT_NODE {
            let coded = self.find_or_insert(context, value, SUBCONTEXT_RULES)?;
            self.link(link, coded.symbol)?;
            link = Link::ParentOf(coded.symbol);
            let stats = *self.node(context)?;
            if coded.count > 0 {
                let under = u32::from(stats.escapes) + u32::from(coded.under);
                encoder.encode(under, coded.count.into(), stats.total)?;
            } else {
                // A context whose escape takes the whole range (or none of
                // it) needs no escape coded: the decoder skips it as well.
                if stats.escapes > 0 && stats.escapes < stats.total {
                    encoder.encode(0, stats.escapes.into(), stats.total)?;
                }
                self.note_escape(context)?;
            }
            self.settle(context, coded.count, SUBCONTEXT_RULES)?;
            if coded.count > 0 {
                return Ok(());
            }
            context = usize::from(self.node(context)?.parent);
        }
        let coded = self.find_or_insert(ROOT_NODE, value, ROOT_RULES)?;
        self.link(link, coded.symbol)?;
        let root = *self.node(ROOT_NODE)?;
        let under = u32::from(root.escapes) + u32::from(coded.under);
        encoder.encode(under, coded.count.into(), root.total)?;
        self.settle(ROOT_NODE, coded.count, ROOT_RULES)
    }

    /// Decodes one byte, or `None` at the end marker (an escape in the
    /// root), then updates the contexts that escaped as the encoder did.
    fn decode_byte(&mut self, decoder: &mut Decoder<'_>) -> Result<Option<u8>, Failure> {
        let start = usize::from(self.predicted);
        let mut context = start;
        let found = loop {
            if context == ROOT_NODE {
                match self.decode_in(ROOT_NODE, ROOT_RULES, decoder)? {
                    Some(found) => break found,
                    None => return Ok(None),
                }
            }
            let stats = *self.node(context)?;
            // Where the escape takes the whole range (or none of it) the
            // encoder coded nothing; skip the context as it did.
            let coded_here = stats.escapes > 0 && stats.escapes < stats.total;
            if coded_here {
                if let Some(found) = self.decode_in(context, SUBCONTEXT_RULES, decoder)? {
                    break found;
                }
            }
            context = usize::from(self.node(context)?.parent);
        };

        // The longer contexts escaped (or were skipped): they learn the
        // byte now, exactly as the encoder's pass through them did.
        let mut link = Link::Predicted;
        let mut patch = start;
        while patch != context {
            let coded = self.find_or_insert(patch, found.value, SUBCONTEXT_RULES)?;
            self.link(link, coded.symbol)?;
            link = Link::ParentOf(coded.symbol);
            if coded.count == 0 {
                self.note_escape(patch)?;
            }
            self.settle(patch, coded.count, SUBCONTEXT_RULES)?;
            patch = usize::from(self.node(patch)?.parent);
        }
        self.link(link, found.symbol)?;
        Ok(Some(found.value))
    }

    /// Decodes one step in a context: the symbol, or `None` for an escape
    /// (in the root, the end of the data).
    fn decode_in(
        &mut self,
        context: usize,
        rules: ContextRules,
        decoder: &mut Decoder<'_>,
    ) -> Result<Option<Coded>, Failure> {
        let stats = *self.node(context)?;
        let code = decoder.read(stats.total)?;
        if code < stats.escapes {
            decoder.decode(0, stats.escapes.into())?;
            return Ok(None);
        }
        let found = self.find_by_code(context, code - stats.escapes, rules)?;
        let escapes = self.node(context)?.escapes;
        decoder.decode(
            u32::from(escapes) + u32::from(found.under),
            found.count.into(),
        )?;
        self.settle(context, found.count, rules)?;
        Ok(Some(found))
    }

    /// Finds `value` in the context's tree (adding it if new) and counts it
    /// once more; reports where it sat before this update.
    fn find_or_insert(
        &mut self,
        context: usize,
        value: u8,
        rules: ContextRules,
    ) -> Result<Coded, Failure> {
        let delta = rules.symbol_delta;
        // Every value below this one contributes its minimum count.
        let mut under = u16::from(value).wrapping_mul(rules.symbol_minimum);
        let mut count = rules.symbol_minimum;
        let tree = self.node(context)?.symbols;
        if tree == 0 {
            return self.add_symbol(context, Branch::Symbols, value, delta, under, count);
        }
        let mut at = context + usize::from(tree);
        loop {
            let node = self.node_mut(at)?;
            if value < node.value {
                node.under = node.under.wrapping_add(delta.into());
                if node.left != 0 {
                    at += usize::from(node.left);
                    continue;
                }
                return self.add_symbol(at, Branch::Left, value, delta, under, count);
            }
            if value > node.value {
                under = under.wrapping_add(node.under);
                if node.right != 0 {
                    at += usize::from(node.right);
                    continue;
                }
                return self.add_symbol(at, Branch::Right, value, delta, under, count);
            }
            count = count.wrapping_add(node.count.into());
            under = under.wrapping_add(node.under.wrapping_sub(node.count.into()));
            node.under = node.under.wrapping_add(delta.into());
            node.count = node.count.wrapping_add(delta);
            return Ok(Coded {
                symbol: at,
                value,
                under,
                count,
            });
        }
    }

    /// Finds the symbol whose slot of the context's distribution holds
    /// `code` (escapes already taken off) and counts it once more. A code
    /// between known symbols names an unseen byte: the root, where every
    /// byte has a slot, adds it; a subcontext has no such slots, so there
    /// it means corrupt data.
    fn find_by_code(
        &mut self,
        context: usize,
        code: u16,
        rules: ContextRules,
    ) -> Result<Coded, Failure> {
        let delta = rules.symbol_delta;
        let minimum = rules.symbol_minimum;
        let mut under: u16 = 0;
        let mut count = minimum;
        let tree = self.node(context)?.symbols;
        if tree == 0 {
            let width = slot_width(rules)?;
            // Stock keeps only the low byte when the code is out of range.
            let value = (code / width) as u8;
            let under = code - code % width;
            return self.add_symbol(context, Branch::Symbols, value, delta, under, count);
        }
        let mut at = context + usize::from(tree);
        loop {
            let node = self.node_mut(at)?;
            // This node's own slot is [after - before, after).
            let after = under
                .wrapping_add(node.under)
                .wrapping_add((u16::from(node.value) + 1).wrapping_mul(minimum));
            let before = u16::from(node.count) + minimum;
            if code >= after {
                under = under.wrapping_add(node.under);
                if node.right != 0 {
                    at += usize::from(node.right);
                    continue;
                }
                let width = slot_width(rules)?;
                let gap = code - after;
                let value = node.value.wrapping_add(1).wrapping_add((gap / width) as u8);
                let under = code.wrapping_sub(gap % width);
                return self.add_symbol(at, Branch::Right, value, delta, under, count);
            }
            // Signed: with corrupt data `before` can exceed `after`.
            let slot_start = i32::from(after) - i32::from(before);
            if i32::from(code) < slot_start {
                node.under = node.under.wrapping_add(delta.into());
                if node.left != 0 {
                    at += usize::from(node.left);
                    continue;
                }
                let width = slot_width(rules)?;
                // In 0..slot_start, so it fits.
                let gap = (slot_start - i32::from(code) - 1) as u16;
                let value = node.value.wrapping_sub(1).wrapping_sub((gap / width) as u8);
                let under = code.wrapping_sub(gap % width);
                return self.add_symbol(at, Branch::Left, value, delta, under, count);
            }
            let value = node.value;
            count = count.wrapping_add(node.count.into());
            under = after.wrapping_sub(before);
            node.under = node.under.wrapping_add(delta.into());
            node.count = node.count.wrapping_add(delta);
            return Ok(Coded {
                symbol: at,
                value,
                under,
                count,
            });
        }
    }

    /// Accounts one escape from a subcontext.
    fn note_escape(&mut self, context: usize) -> Result<(), Failure> {
        let stats = self.node_mut(context)?;
        stats.escapes = stats.escapes.wrapping_add(SUBCONTEXT_ESCAPE_DELTA);
        stats.total = stats.total.wrapping_add(SUBCONTEXT_ESCAPE_DELTA);
        Ok(())
    }

    /// Adds the coded symbol's increment to the context total, and rescales
    /// the context if the symbol's count (`count`, seen before the update)
    /// or the total have grown too large.
    fn settle(&mut self, context: usize, count: u16, rules: ContextRules) -> Result<(), Failure> {
        let stats = self.node_mut(context)?;
        stats.total = stats.total.wrapping_add(rules.symbol_delta.into());
        if count > rules.count_limit || stats.total > TOTAL_LIMIT {
            self.rescale(context, rules)?;
        }
        Ok(())
    }

    /// Halves the context's escapes and every count in its tree (rounding
    /// up, so nothing seen drops to zero), then recomputes its total.
    fn rescale(&mut self, context: usize, rules: ContextRules) -> Result<(), Failure> {
        let tree = self.node(context)?.symbols;
        let counted = if tree == 0 {
            0
        } else {
            self.halve_tree(context + usize::from(tree))?
        };
        let stats = self.node_mut(context)?;
        stats.escapes -= stats.escapes >> 1;
        stats.total = counted
            .wrapping_add(stats.escapes)
            .wrapping_add(256u16.wrapping_mul(rules.symbol_minimum));
        Ok(())
    }

    /// Halves every count in the tree below `top`, recomputes each node's
    /// `under`, and returns the sum of the new counts (modulo 2^16, as the
    /// 16-bit totals are). Walks without recursion: trees can be deep.
    fn halve_tree(&mut self, top: usize) -> Result<u16, Failure> {
        // Breadth-first order lists every node before its children, so the
        // reverse order meets children first.
        self.rescale_walk.clear();
        self.rescale_walk.push(index_u16(top)?);
        let mut next = 0;
        while let Some(&at) = self.rescale_walk.get(next) {
            let at = usize::from(at);
            let node = *self.node(at)?;
            for offset in [node.left, node.right] {
                if offset != 0 {
                    if self.rescale_walk.len() >= SYMBOL_CAPACITY {
                        return Err(Failure::BrokenModel);
                    }
                    self.rescale_walk.push(index_u16(at + usize::from(offset))?);
                }
            }
            next += 1;
        }
        for position in (0..self.rescale_walk.len()).rev() {
            let at = usize::from(self.rescale_walk[position]);
            let node = *self.node(at)?;
            let left_sum = self.subtree_sum(at, node.left)?;
            let right_sum = self.subtree_sum(at, node.right)?;
            let count = node.count - (node.count >> 1);
            let under = u16::from(count).wrapping_add(left_sum);
            let sum = self.rescale_sums.get_mut(at).ok_or(Failure::BrokenModel)?;
            *sum = under.wrapping_add(right_sum);
            let node = self.node_mut(at)?;
            node.count = count;
            node.under = under;
        }
        self.rescale_sums
            .get(top)
            .copied()
            .ok_or(Failure::BrokenModel)
    }

    /// The halved sum of the subtree at `offset` from `at` (0: no subtree).
    fn subtree_sum(&self, at: usize, offset: u16) -> Result<u16, Failure> {
        if offset == 0 {
            return Ok(0);
        }
        self.rescale_sums
            .get(at + usize::from(offset))
            .copied()
            .ok_or(Failure::BrokenModel)
    }

    /// Records `symbol` where `link` says.
    fn link(&mut self, link: Link, symbol: usize) -> Result<(), Failure> {
        let symbol = index_u16(symbol)?;
        match link {
            Link::Predicted => self.predicted = symbol,
            Link::ParentOf(node) => self.node_mut(node)?.parent = symbol,
        }
        Ok(())
    }

    /// Moves the prediction on after a byte: while fewer than the order's
    /// bytes are known the context just gets longer; after that the oldest
    /// byte is dropped. Restarts the model when the table is nearly full.
    fn advance(&mut self) -> Result<(), Failure> {
        if self.order >= SUBCONTEXT_ORDER {
            self.predicted = self.node(usize::from(self.predicted))?.parent;
        } else {
            self.order += 1;
        }
        if self.next_free >= RESTART_THRESHOLD {
            self.restart()?;
        }
        Ok(())
    }

    /// Empties the model: only the root context, nothing predicted.
    fn restart(&mut self) -> Result<(), Failure> {
        self.next_free = 0;
        let root = self.create_symbol(0, 0)?;
        let minimum = ROOT_RULES.symbol_minimum;
        let stats = self.node_mut(root)?;
        stats.escapes = ROOT_ESCAPE_MINIMUM;
        stats.total = ROOT_ESCAPE_MINIMUM + 256 * minimum;
        self.predicted = 0;
        self.order = 0;
        Ok(())
    }

    /// Takes the next free node for `value`, seen `count` times, with no
    /// children and (as a context) nothing seen yet.
    /// A new symbol for `value`, hung from `parent` on `branch` (the offset
    /// always points forward: new nodes come after their parents), and
    /// reported as the outcome of a lookup.
    fn add_symbol(
        &mut self,
        parent: usize,
        branch: Branch,
        value: u8,
        delta: u8,
        under: u16,
        count: u16,
    ) -> Result<Coded, Failure> {
        let symbol = self.create_symbol(value, delta)?;
        let offset = forward_offset(parent, symbol);
        let parent = self.node_mut(parent)?;
        match branch {
            Branch::Symbols => parent.symbols = offset,
            Branch::Left => parent.left = offset,
            Branch::Right => parent.right = offset,
        }
        Ok(Coded {
            symbol,
            value,
            under,
            count,
        })
    }

    fn create_symbol(&mut self, value: u8, count: u8) -> Result<usize, Failure> {
        let index = self.next_free;
        *self.node_mut(index)? = Node {
            value,
            count,
            under: count.into(),
            ..Node::default()
        };
        self.next_free += 1;
        Ok(index)
    }

    fn node(&self, index: usize) -> Result<&Node, Failure> {
        self.nodes.get(index).ok_or(Failure::BrokenModel)
    }

    fn node_mut(&mut self, index: usize) -> Result<&mut Node, Failure> {
        self.nodes.get_mut(index).ok_or(Failure::BrokenModel)
    }
}

/// The offset stored in a link from `from` to the newer node `to`.
fn forward_offset(from: usize, to: usize) -> u16 {
    // Both are table indices (below 4096), so this cannot truncate.
    to.wrapping_sub(from) as u16
}

fn index_u16(index: usize) -> Result<u16, Failure> {
    u16::try_from(index).map_err(|_| Failure::BrokenModel)
}

/// The width of an unseen byte's slot; only contexts with a minimum count
/// have such slots.
fn slot_width(rules: ContextRules) -> Result<NonZeroU16, Failure> {
    NonZeroU16::new(rules.symbol_minimum).ok_or(Failure::UnknownSymbol)
}

/// The coding interval `[low, low + range)`, in the 32-bit arithmetic both
/// directions share.
#[derive(Debug, Clone, Copy)]
struct Interval {
    low: u32,
    range: u32,
}

impl Interval {
    const FULL: Interval = Interval {
        low: 0,
        range: u32::MAX,
    };

    /// Divides the interval into `total` equal steps (the remainder is
    /// wasted) and keeps `count` steps starting at step `under`.
    fn narrow(&mut self, under: u32, count: u32, total: u16) -> Result<(), Failure> {
        self.range = self.scale(total)?;
        self.low = self.low.wrapping_add(under.wrapping_mul(self.range));
        self.range = self.range.wrapping_mul(count);
        Ok(())
    }

    /// The size of one of `total` steps.
    fn scale(&self, total: u16) -> Result<u32, Failure> {
        self.range
            .checked_div(u32::from(total))
            .ok_or(Failure::BrokenModel)
    }

    /// Shifts out top bytes while they are settled, handing each to
    /// `shift`. An interval that straddles a top-byte boundary while too
    /// narrow is cut down to the part below the next 64 KiB boundary, so
    /// that it settles (the encoder and decoder cut alike).
    fn renormalize(
        &mut self,
        mut shift: impl FnMut(u8) -> Result<(), Failure>,
    ) -> Result<(), Failure> {
        loop {
            if (self.low ^ self.low.wrapping_add(self.range)) >= RANGE_TOP {
                if self.range >= RANGE_BOTTOM {
                    return Ok(());
                }
                self.range = self.low.wrapping_neg() & (RANGE_BOTTOM - 1);
            }
            shift(self.low.to_be_bytes()[0])?;
            self.range <<= 8;
            self.low <<= 8;
        }
    }
}

/// The encoding side: narrows the interval and writes settled bytes.
struct Encoder<'o> {
    interval: Interval,
    out: &'o mut [u8],
    written: usize,
}

impl<'o> Encoder<'o> {
    fn new(out: &'o mut [u8]) -> Self {
        Encoder {
            interval: Interval::FULL,
            out,
            written: 0,
        }
    }

    /// Codes the slot `[under, under + count)` out of `total`.
    fn encode(&mut self, under: u32, count: u32, total: u16) -> Result<(), Failure> {
        self.interval.narrow(under, count, total)?;
        let (out, written) = (&mut *self.out, &mut self.written);
        self.interval.renormalize(|byte| emit(out, written, byte))
    }

    /// Writes the bytes of `low` up to its last non-zero one: the decoder
    /// reads zeros past the end, so that pins the final interval down.
    fn finish(mut self) -> Result<usize, Failure> {
        while self.interval.low != 0 {
            emit(
                self.out,
                &mut self.written,
                self.interval.low.to_be_bytes()[0],
            )?;
            self.interval.low <<= 8;
        }
        Ok(self.written)
    }
}

fn emit(out: &mut [u8], written: &mut usize, byte: u8) -> Result<(), Failure> {
    let slot = out.get_mut(*written).ok_or(Failure::OutputFull)?;
    *slot = byte;
    *written += 1;
    Ok(())
}

/// The decoding side: follows the encoder's interval and holds the next
/// 32 bits of input (zeros past the end) in `code`.
struct Decoder<'i> {
    interval: Interval,
    code: u32,
    input: &'i [u8],
    position: usize,
}

impl<'i> Decoder<'i> {
    fn new(input: &'i [u8]) -> Self {
        let mut decoder = Decoder {
            interval: Interval::FULL,
            code: 0,
            input,
            position: 0,
        };
        for _ in 0..4 {
            decoder.code = (decoder.code << 8) | next_input(input, &mut decoder.position);
        }
        decoder
    }

    /// Which of `total` steps the code falls in. This divides the interval
    /// already; [`Decoder::decode`] must follow with the step found.
    fn read(&mut self, total: u16) -> Result<u16, Failure> {
        self.interval.range = self.interval.scale(total)?;
        let offset = self.code.wrapping_sub(self.interval.low);
        let step = offset
            .checked_div(self.interval.range)
            .ok_or(Failure::BrokenModel)?;
        // Stock keeps 16 bits; with corrupt input the step can exceed them.
        Ok(step as u16)
    }

    /// Moves to the slot `[under, under + count)` of the steps `read` made.
    fn decode(&mut self, under: u32, count: u32) -> Result<(), Failure> {
        let interval = &mut self.interval;
        interval.low = interval
            .low
            .wrapping_add(under.wrapping_mul(interval.range));
        interval.range = interval.range.wrapping_mul(count);
        let (code, input, position) = (&mut self.code, self.input, &mut self.position);
        interval.renormalize(|_| {
            *code = (*code << 8) | next_input(input, position);
            Ok(())
        })
    }
}

/// The next input byte, or 0 past the end.
fn next_input(input: &[u8], position: &mut usize) -> u32 {
    match input.get(*position) {
        Some(&byte) => {
            *position += 1;
            u32::from(byte)
        }
        None => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_is_as_compact_as_stocks() {
        assert_eq!(core::mem::size_of::<Node>(), 16);
    }

    #[test]
    fn restart_sets_up_the_root_context() {
        let mut coder = RangeCoder::new();
        coder.restart().unwrap();
        let root = coder.nodes[ROOT_NODE];
        assert_eq!((root.escapes, root.total, root.symbols), (1, 257, 0));
        assert_eq!(coder.next_free, 1);
    }

    #[test]
    fn rescale_halves_counts_and_rebuilds_unders() {
        let mut coder = RangeCoder::new();
        coder.restart().unwrap();
        for value in [b'm', b'c', b'x', b'a', b'd'] {
            coder.find_or_insert(ROOT_NODE, value, ROOT_RULES).unwrap();
        }
        // Bump 'd' a few times so counts differ.
        for _ in 0..3 {
            coder.find_or_insert(ROOT_NODE, b'd', ROOT_RULES).unwrap();
        }
        coder.rescale(ROOT_NODE, ROOT_RULES).unwrap();
        let by_value = |v: u8| *coder.nodes.iter().find(|n| n.value == v).unwrap();
        // counts 3 -> 2 (ceil half), 12 -> 6.
        assert_eq!(by_value(b'a').count, 2);
        assert_eq!(by_value(b'd').count, 6);
        // 'm' is the tree top: left subtree a, c, d; under = own + left.
        assert_eq!(by_value(b'm').under, 2 + (2 + 2 + 6));
        // escapes 1 stays 1; total = counts + escapes + 256 minimums.
        let root = coder.nodes[ROOT_NODE];
        assert_eq!(root.total, (2 + 2 + 2 + 2 + 6) + 1 + 256);
    }
}
