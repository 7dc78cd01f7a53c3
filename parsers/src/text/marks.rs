//! Which of a few chosen bytes each line holds, read once per line by one
//! table look-up per byte for all the bytes at once. Most lines are prose
//! that holds none of the bytes markup, prompts and the tools' reports
//! start with; with its mark in hand, nothing searches such a line again.
//! (A vector search per byte, of each line or of the whole input, costs
//! more: set-up on every short line, or a stop at every hit of the common
//! bytes such as `:` and `,`.)

/// The bytes lines are marked by: up to 32 chosen bytes, each with a bit
/// of its own in a line's mark, so that a mark says which of them the line
/// holds.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkedBytes {
    bit_of: [u32; 256],
    given: usize,
}

impl MarkedBytes {
    /// Gives each byte of `groups` a bit, in order; a byte named twice
    /// keeps its first bit, and bytes past the 32nd share the last bit
    /// (a mark may say a line holds a byte it does not, never the reverse).
    pub fn new(groups: &[&[u8]]) -> MarkedBytes {
        let mut marked = MarkedBytes {
            bit_of: [0; 256],
            given: 0,
        };
        for &byte in groups.iter().flat_map(|group| group.iter()) {
            if marked.bit_of[usize::from(byte)] == 0 {
                marked.bit_of[usize::from(byte)] = 1u32 << marked.given.min(31);
                marked.given += 1;
            }
        }
        marked
    }

    /// How many distinct bytes were given bits: past 32 they share the
    /// last one, and marks stop telling those bytes apart.
    #[cfg(test)]
    pub fn given(&self) -> usize {
        self.given
    }

    /// The bits of `bytes`: a line holds one of them when its mark and
    /// this share a bit.
    pub fn mask(&self, bytes: &[u8]) -> u32 {
        bytes
            .iter()
            .fold(0, |mask, &byte| mask | self.bit_of[usize::from(byte)])
    }

    /// The mark of one text.
    pub fn mark_of(&self, text: &[u8]) -> u32 {
        // Four marks OR-ed apart, so that the loads of the table need not
        // wait on one another.
        let mut quads = text.chunks_exact(4);
        let mut marks = [0u32; 4];
        for quad in &mut quads {
            for (mark, &byte) in marks.iter_mut().zip(quad) {
                *mark |= self.bit_of[usize::from(byte)];
            }
        }
        let rest = quads
            .remainder()
            .iter()
            .fold(0, |mark, &byte| mark | self.bit_of[usize::from(byte)]);
        marks[0] | marks[1] | marks[2] | marks[3] | rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mark_says_which_bytes_a_line_holds() {
        let bits = MarkedBytes::new(&[b"=<", b"Q:=", b"#%,"]);
        let input = b"plain\nkey=1\n<b>Q\n\nx: 5%, #\nQ";
        let marks: Vec<u32> = input
            .split(|&b| b == b'\n')
            .map(|line| bits.mark_of(line))
            .collect();
        assert_eq!(marks[0], 0);
        assert_eq!(marks[1], bits.mask(b"="));
        assert_eq!(marks[2], bits.mask(b"<Q"));
        assert_eq!(marks[4], bits.mask(b":%,#"));
        assert_ne!(marks[5] & bits.mask(b"Q"), 0);
    }
}
