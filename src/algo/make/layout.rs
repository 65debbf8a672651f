//! How a collective's chunks are laid out: chunks per loop, buffer sizes, the in-place
//! aliasing of input and output, and where instance `i` of a replicated program puts
//! its chunks.

use super::super::program::{Buffer, Collective};

/// The chunk layout of one program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub coll: Collective,
    pub ranks: u32,
    /// Chunks per instance: of the whole buffer for allreduce and broadcast, of one
    /// rank's block for allgather, reduce-scatter and all-to-all.
    pub per: u32,
    pub instances: u32,
}

impl Layout {
    /// Whether the collective's buffers are split into one block per rank.
    fn blocked(&self) -> bool {
        matches!(self.coll, Collective::AllGather | Collective::ReduceScatter | Collective::AllToAll)
    }

    /// Chunks of the larger buffer in one instance.
    pub fn chunks(&self) -> u32 {
        if self.blocked() { self.ranks * self.per } else { self.per }
    }

    /// `nchunksperloop`.
    pub fn chunks_per_loop(&self) -> u32 {
        self.chunks() * self.instances
    }

    pub fn input_chunks(&self) -> u32 {
        match self.coll {
            Collective::AllGather => self.per * self.instances,
            _ => self.chunks_per_loop(),
        }
    }

    pub fn output_chunks(&self) -> u32 {
        match self.coll {
            Collective::ReduceScatter => self.per * self.instances,
            _ => self.chunks_per_loop(),
        }
    }

    /// The first scratch chunk free for staging (below it: the algorithms' own
    /// scratch chunks, one range per instance).
    pub fn scratch_base(&self) -> u32 {
        self.chunks() * self.instances
    }

    /// Chunk `idx` of instance `inst` in the program's numbering. Blocked buffers keep
    /// each rank's block together (rank `q`'s block holds every instance's chunks in
    /// turn); the others put instance after instance.
    pub fn map(&self, inst: u32, rank: u32, buf: Buffer, idx: u32) -> u32 {
        let _ = rank;
        let k = self.instances;
        match (buf, self.coll) {
            (Buffer::Scratch, _) => inst * self.chunks() + idx,
            (Buffer::Input, Collective::AllGather) | (Buffer::Output, Collective::ReduceScatter) => {
                inst * self.per + idx
            }
            _ if self.blocked() => {
                let (q, j) = (idx / self.per, idx % self.per);
                q * k * self.per + inst * self.per + j
            }
            _ => inst * self.chunks() + idx,
        }
    }

    /// The memory a chunk is when the call is in place (§3's aliasing), as one name:
    /// the DAG orders accesses by it, so a program is ordered for both modes.
    pub fn alias(&self, rank: u32, buf: Buffer, idx: u32) -> (Buffer, u32) {
        let block = self.per * self.instances;
        match (buf, self.coll) {
            (Buffer::Scratch, _) => (Buffer::Scratch, idx),
            (Buffer::Input, Collective::AllGather) => (Buffer::Output, rank * block + idx),
            (Buffer::Output, Collective::ReduceScatter) => (Buffer::Input, rank * block + idx),
            (Buffer::Input, Collective::ReduceScatter) => (Buffer::Input, idx),
            (Buffer::Input, _) => (Buffer::Output, idx),
            (b, _) => (b, idx),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocked_instances_interleave_inside_each_rank_block() {
        let l = Layout { coll: Collective::AllGather, ranks: 4, per: 1, instances: 2 };
        assert_eq!(l.chunks_per_loop(), 8);
        assert_eq!((l.input_chunks(), l.output_chunks()), (2, 8));
        // rank 2's chunk of instance 1 is output chunk 2*2+1
        assert_eq!(l.map(1, 0, Buffer::Output, 2), 5);
        assert_eq!(l.map(1, 2, Buffer::Input, 0), 1);
        // in place, rank 2's input chunk 1 is its output chunk 5
        assert_eq!(l.alias(2, Buffer::Input, 1), (Buffer::Output, 5));
    }

    #[test]
    fn whole_buffers_put_instance_after_instance() {
        let l = Layout { coll: Collective::AllReduce, ranks: 4, per: 4, instances: 2 };
        assert_eq!(l.map(1, 0, Buffer::Input, 3), 7);
        assert_eq!(l.alias(0, Buffer::Input, 7), (Buffer::Output, 7));
        let rs = Layout { coll: Collective::ReduceScatter, ranks: 4, per: 1, instances: 1 };
        assert_eq!(rs.alias(3, Buffer::Output, 0), (Buffer::Input, 3));
        assert_eq!(rs.alias(3, Buffer::Input, 3), (Buffer::Input, 3));
    }
}
