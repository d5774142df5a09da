//! Many strings, one per slot, in shared parts (see [`Parts`]): each part keeps its
//! slots' strings end to end in one buffer with the offsets where each starts, so a
//! sweep over a part reads one buffer and an update copies only the parts it changes.

use super::offsets::Offsets;
use super::parts::{Part, Parts, Slotted};
use std::ops::Range;

/// A buffer strings are kept in end to end: a `String` or a `Vec<u8>`.
pub(crate) trait Buffer: Default + Clone {
    /// One string of it.
    type Item: ?Sized;
    /// Adds `item` at the end.
    fn push(&mut self, item: &Self::Item);
    /// Adds `src[range]` at the end.
    fn extend(&mut self, src: &Self, range: Range<usize>);
    /// Bytes held.
    fn len(&self) -> usize;
    /// The bytes `range` (whole strings).
    fn slice(&self, range: Range<usize>) -> &Self::Item;
}

impl Buffer for String {
    type Item = str;
    fn push(&mut self, item: &str) {
        self.push_str(item);
    }
    fn extend(&mut self, src: &Self, range: Range<usize>) {
        self.push_str(&src[range]);
    }
    fn len(&self) -> usize {
        String::len(self)
    }
    #[inline]
    fn slice(&self, range: Range<usize>) -> &str {
        &self[range]
    }
}

impl Buffer for Vec<u8> {
    type Item = [u8];
    fn push(&mut self, item: &[u8]) {
        self.extend_from_slice(item);
    }
    fn extend(&mut self, src: &Self, range: Range<usize>) {
        self.extend_from_slice(&src[range]);
    }
    fn len(&self) -> usize {
        Vec::len(self)
    }
    #[inline]
    fn slice(&self, range: Range<usize>) -> &[u8] {
        &self[range]
    }
}

/// The strings of one part: string `i` is `buffer[starts.part(i)]`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Strings<B> {
    pub buffer: B,
    pub starts: Offsets,
}

impl<B: Buffer> Strings<B> {
    /// String number `i` of the part.
    #[inline]
    pub fn get(&self, i: usize) -> &B::Item {
        self.buffer.slice(self.starts.part(i))
    }

    /// Strings held.
    pub fn len(&self) -> usize {
        self.starts.len() - 1
    }
}

impl<B: Buffer> Part for Strings<B> {
    fn append(&mut self, at: usize, src: &Self, from: usize, to: usize) {
        debug_assert_eq!(at, self.len(), "strings are appended at the end");
        let (lo, hi) = (src.starts.get(from), src.starts.get(to));
        let base = self.buffer.len();
        self.buffer.extend(&src.buffer, lo..hi);
        for i in from + 1..=to {
            self.starts.push(src.starts.get(i) - lo + base);
        }
    }
}

/// One string per slot, pushed in slot order.
#[derive(Debug, Default, Clone)]
pub(crate) struct Arena<B> {
    parts: Parts<Strings<B>>,
}

/// Strings of text (ids, fuzzy haystacks).
pub(crate) type TextArena = Arena<String>;

/// Strings of bytes (literal haystacks, stored memories, term sections).
pub(crate) type ByteArena = Arena<Vec<u8>>;

impl<B: Buffer> Arena<B> {
    /// Adds the string of the next slot.
    pub(crate) fn push(&mut self, item: &B::Item) {
        let (part, _) = self.parts.writing(self.parts.slots());
        part.buffer.push(item);
        let end = part.buffer.len();
        part.starts.push(end);
    }

    /// The string of `slot`.
    #[inline]
    pub fn get(&self, slot: usize) -> &B::Item {
        let (part, i) = self
            .parts
            .part(slot)
            .unwrap_or_else(|| panic!("slot {slot} of {} in an arena", self.len()));
        part.get(i)
    }

    /// Slots held.
    pub fn len(&self) -> usize {
        self.parts.slots()
    }

    /// The parts that hold slots of `lo..hi`: each with its first slot and the range of
    /// its own slot numbers in `lo..hi`.
    pub(crate) fn parts_in(
        &self,
        lo: usize,
        hi: usize,
    ) -> impl Iterator<Item = (usize, &Strings<B>, Range<usize>)> {
        self.parts.each().filter_map(move |(first, part)| {
            let (from, to) = (lo.max(first), hi.min(first + part.len()));
            (from < to).then(|| (first, part, from - first..to - first))
        })
    }
}

impl<B: Buffer> Slotted for Arena<B> {
    fn append(&mut self, at: usize, src: &Arena<B>, from: usize, to: usize) {
        self.parts.append(at, &src.parts, from, to);
    }
}

impl TextArena {
    /// Adds the next slot's string: `items`, one line each.
    pub(crate) fn push_lines<'a>(&mut self, items: impl Iterator<Item = &'a str>) {
        let (part, _) = self.parts.writing(self.parts.slots());
        for (k, item) in items.enumerate() {
            if k > 0 {
                part.buffer.push('\n');
            }
            part.buffer.push_str(item);
        }
        let end = part.buffer.len();
        part.starts.push(end);
    }
}

impl ByteArena {
    /// Asks the processor to start loading the bytes of `slot` (nothing past the end).
    pub(crate) fn prefetch(&self, slot: usize) {
        if let Some((part, i)) = self.parts.part(slot)
            && i < part.len()
        {
            prefetch(&part.buffer, part.starts.get(i));
        }
    }
}

/// How many haystacks ahead of the one searched a sweep asks the processor to load:
/// a word found early in nearly every haystack (a first letter) leaves a sweep waiting
/// on memory at each haystack's start, not on the search itself.
pub(crate) const PREFETCH_AHEAD: usize = 8;

/// Asks the processor to start loading the cache line of `bytes[at]`, if there is one.
#[inline]
fn prefetch(bytes: &[u8], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(byte) = bytes.get(at) {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is a hint that never faults and changes nothing the
        // program can see; the pointer is in bounds besides.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(byte).cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, at);
}

#[cfg(test)]
mod tests {
    use super::TextArena;
    use crate::search::parts::PART_SLOTS;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn strings_read_back_and_parts_cover_each_range_once(
            words in prop::collection::vec("[a-zé]{0,5}", 0..PART_SLOTS * 4),
            lo in 0usize..PART_SLOTS * 4,
            len in 0usize..PART_SLOTS * 3,
        ) {
            let mut a = TextArena::default();
            for w in &words {
                a.push(w);
            }
            prop_assert_eq!(a.len(), words.len());
            for (slot, w) in words.iter().enumerate() {
                prop_assert_eq!(a.get(slot), w.as_str());
            }
            let (lo, hi) = (lo.min(words.len()), (lo + len).min(words.len()));
            let mut seen = Vec::new();
            for (first, part, range) in a.parts_in(lo, hi) {
                for i in range {
                    seen.push(first + i);
                    prop_assert_eq!(part.get(i), words[first + i].as_str());
                }
            }
            prop_assert_eq!(seen, (lo..hi).collect::<Vec<_>>());
        }
    }
}
