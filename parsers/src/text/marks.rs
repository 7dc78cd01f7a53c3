//! Which of a few chosen bytes each line holds, found for the whole input
//! at once. Most lines are prose that holds none of the bytes markup and
//! the tools' reports start with; a vector search of the whole input per
//! three bytes finds the few lines that do, where a search of each line
//! would pay the search's set-up cost on every line.

/// Up to 32 chosen bytes, each with a bit of its own in a line's mark.
#[derive(Debug, Clone)]
pub struct ByteBits {
    bit_of: [u32; 256],
    bytes: Vec<u8>,
}

impl ByteBits {
    /// Gives each byte of `groups` a bit, in order; a byte named twice
    /// keeps its first bit, and bytes past the 32nd share the last bit
    /// (a mark may say a line holds a byte it does not, never the reverse).
    pub fn new(groups: &[&[u8]]) -> ByteBits {
        let mut bits = ByteBits {
            bit_of: [0; 256],
            bytes: Vec::new(),
        };
        for &byte in groups.iter().flat_map(|group| group.iter()) {
            if bits.bit_of[usize::from(byte)] == 0 {
                let bit = 1u32 << bits.bytes.len().min(31);
                bits.bit_of[usize::from(byte)] = bit;
                bits.bytes.push(byte);
            }
        }
        bits
    }

    /// The bits of `bytes`: a line holds one of them when its mark and
    /// this share a bit.
    pub fn mask(&self, bytes: &[u8]) -> u32 {
        bytes
            .iter()
            .fold(0, |mask, &byte| mask | self.bit_of[usize::from(byte)])
    }

    /// The mark of one text, byte by byte: for the few lines that were
    /// rewritten after the whole input was marked.
    pub fn mark_of(&self, text: &[u8]) -> u32 {
        text.iter()
            .fold(0, |mark, &byte| mark | self.bit_of[usize::from(byte)])
    }

    /// The mark of each line of `input`, whose lines end at `ends` (the
    /// offset of each line's `\n`, or the input's length for the last).
    pub fn mark_lines(&self, input: &[u8], ends: &[usize]) -> Vec<u32> {
        let mut marks = vec![0u32; ends.len()];
        for group in self.bytes.chunks(3) {
            match *group {
                [a] => self.mark_hits(memchr::memchr_iter(a, input), input, ends, &mut marks),
                [a, b] => {
                    self.mark_hits(memchr::memchr2_iter(a, b, input), input, ends, &mut marks)
                }
                [a, b, c, ..] => self.mark_hits(
                    memchr::memchr3_iter(a, b, c, input),
                    input,
                    ends,
                    &mut marks,
                ),
                [] => {}
            }
        }
        marks
    }

    fn mark_hits(
        &self,
        hits: impl Iterator<Item = usize>,
        input: &[u8],
        ends: &[usize],
        marks: &mut [u32],
    ) {
        let mut line = 0;
        for at in hits {
            // Hits come in order: the line holding one is at or after the
            // line of the one before.
            while ends.get(line).is_some_and(|&end| end < at) {
                line += 1;
            }
            if let Some(mark) = marks.get_mut(line) {
                *mark |= self.bit_of[usize::from(input[at])];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_say_which_lines_hold_which_bytes() {
        let bits = ByteBits::new(&[b"=<", b"Q:=", b"#%,"]);
        let input = b"plain\nkey=1\n<b>Q\n\nx: 5%, #\nQ";
        let ends: Vec<usize> = memchr::memchr_iter(b'\n', input)
            .chain([input.len()])
            .collect();
        let marks = bits.mark_lines(input, &ends);
        let want: Vec<u32> = input
            .split(|&b| b == b'\n')
            .map(|line| bits.mark_of(line))
            .collect();
        assert_eq!(marks, want);
        assert_eq!(marks[0], 0);
        assert_eq!(marks[1], bits.mask(b"="));
        assert_eq!(marks[2], bits.mask(b"<Q"));
        assert_eq!(marks[4], bits.mask(b":%,#"));
        assert_ne!(marks[5] & bits.mask(b"Q"), 0);
    }
}
