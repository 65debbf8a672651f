//! Typed buffer references of a plan's copies, so that the task lists can be run
//! ([`crate::bench::streams`]) as well as printed.
//!
//! A reference names a rank's buffer (its own when `rank` is `None`) and an offset; a
//! copy or reduce moves the elements of a [`Span`] of the collective's slices. Slices
//! are the collective's unit of data: one rank's share (allgather's input,
//! reducescatter's output), or 1/d of an allreduce's buffer (uneven when d does not
//! divide the count). The text is what `topo algo plan` prints: `rank3.CCL_Out+off(3)`,
//! `UserOut+7*slice`, `Scratch`.

use std::fmt;

/// The buffers of a rank HCCL's executors name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Buf {
    UserIn,
    UserOut,
    CclIn,
    CclOut,
    Scratch,
}

impl Buf {
    pub fn name(self) -> &'static str {
        match self {
            Buf::UserIn => "UserIn",
            Buf::UserOut => "UserOut",
            Buf::CclIn => "CCL_In",
            Buf::CclOut => "CCL_Out",
            Buf::Scratch => "Scratch",
        }
    }
}

/// Where in the buffer a reference starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Off {
    /// The buffer's start (printed as nothing).
    Start,
    /// The start of slice k (printed `+k*slice`).
    Slice(u32),
    /// Rank k's place in a CCL buffer, the start of slice k (printed `+off(k)`).
    Place(u32),
}

impl Off {
    /// The slice index the offset starts at (0 for the buffer's start).
    pub fn slice(self) -> u32 {
        match self {
            Off::Start => 0,
            Off::Slice(k) | Off::Place(k) => k,
        }
    }
}

/// A place in a rank's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BufRef {
    /// The peer whose buffer it is; `None`: the rank's own.
    pub rank: Option<u32>,
    pub buf: Buf,
    pub off: Off,
}

impl BufRef {
    pub fn own(buf: Buf) -> BufRef {
        BufRef { rank: None, buf, off: Off::Start }
    }
    pub fn at(buf: Buf, off: Off) -> BufRef {
        BufRef { rank: None, buf, off }
    }
    pub fn peer(rank: u32, buf: Buf, off: Off) -> BufRef {
        BufRef { rank: Some(rank), buf, off }
    }
}

impl fmt::Display for BufRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(r) = self.rank {
            write!(f, "rank{r}.")?;
        }
        f.write_str(self.buf.name())?;
        match self.off {
            Off::Start => Ok(()),
            Off::Slice(k) => write!(f, "+{k}*slice"),
            Off::Place(k) => write!(f, "+off({k})"),
        }
    }
}

/// How much a copy moves: the elements of slices `first .. first + n` (the length of
/// those slices, wherever source and destination start).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    pub first: u32,
    pub n: u32,
}

impl Span {
    pub fn one(k: usize) -> Span {
        Span { first: k as u32, n: 1 }
    }
    pub fn all(d: usize) -> Span {
        Span { first: 0, n: d as u32 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_print_as_the_plan_always_did() {
        assert_eq!(BufRef::own(Buf::UserIn).to_string(), "UserIn");
        assert_eq!(BufRef::at(Buf::UserOut, Off::Slice(7)).to_string(), "UserOut+7*slice");
        assert_eq!(BufRef::peer(7, Buf::CclOut, Off::Place(7)).to_string(), "rank7.CCL_Out+off(7)");
        assert_eq!(BufRef::peer(2, Buf::Scratch, Off::Start).to_string(), "rank2.Scratch");
        assert_eq!(BufRef::at(Buf::CclIn, Off::Slice(3)).to_string(), "CCL_In+3*slice");
    }
}
