//! The ring allreduce schedule both backends follow (the CUDA kernel computes the same
//! numbers in `kernels/allreduce.cu`; keep the two in step).
//!
//! The buffer is cut into loops of `nchannels * nranks` chunks. In each loop, channel
//! `c` owns `nranks` consecutive chunks and moves them around its own ring in
//! `2*nranks - 1` steps: `nranks - 1` reduce-scatter steps and then `nranks - 1`
//! all-gather steps, with the step in the middle both finishing the reduction and
//! starting the all-gather. At step `s` the rank at ring position `p` works on chunk
//! `(p - s - 1) mod nranks`: it receives that chunk's partial result from the
//! previous rank (except at step 0), combines it with its own input (during the
//! reduce-scatter), writes it to the output (from step `nranks - 1` on) and sends the
//! result to the next rank (except at the last step). Every send fills one FIFO slot,
//! so a chunk is at most one slot long.

/// Chunks start on 16-byte boundaries so the device can use 16-byte vector accesses.
pub const CHUNK_ALIGN_BYTES: usize = 16;

/// How a collective of `count` elements is cut up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingSchedule {
    pub count: usize,
    pub nranks: usize,
    pub nchannels: usize,
    /// Largest chunk, in elements (one FIFO slot).
    pub chunk_elems: usize,
    /// Chunk sizes are multiples of this many elements.
    pub align_elems: usize,
}

/// One loop: where it starts and how long its chunks are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loop {
    pub base: usize,
    pub chunk: usize,
}

/// What one step does, besides which chunk it works on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Takes a slot from the previous rank.
    pub recv: bool,
    /// Fills a slot of the next rank.
    pub send: bool,
    /// Combines with this rank's own input (reduce-scatter part).
    pub reduce: bool,
    /// Completes the reduction (applies the operator's final step, e.g. avg's divide).
    pub finish: bool,
    /// Writes the output buffer (all-gather part).
    pub output: bool,
}

impl RingSchedule {
    /// `slot_bytes` is the FIFO slot size; it is rounded down to the alignment.
    pub fn new(count: usize, elem_size: usize, nranks: usize, nchannels: usize, slot_bytes: usize) -> RingSchedule {
        let align_elems = (CHUNK_ALIGN_BYTES / elem_size).max(1);
        let chunk_elems = ((slot_bytes / elem_size) / align_elems * align_elems).max(align_elems);
        RingSchedule { count, nranks: nranks.max(1), nchannels: nchannels.max(1), chunk_elems, align_elems }
    }

    /// Elements one full loop covers.
    pub fn loop_elems(&self) -> usize {
        self.nchannels * self.nranks * self.chunk_elems
    }

    /// Number of loops (at least one, so that an empty collective still synchronises).
    pub fn nloops(&self) -> usize {
        self.count.div_ceil(self.loop_elems()).max(1)
    }

    /// The `i`-th loop. The last one shrinks its chunks so that the remaining elements
    /// spread over all channels and ranks.
    pub fn loop_at(&self, i: usize) -> Loop {
        let base = i * self.loop_elems();
        let remaining = self.count.saturating_sub(base);
        let per = remaining.div_ceil(self.nchannels * self.nranks);
        let chunk = self.chunk_elems.min(per.div_ceil(self.align_elems) * self.align_elems).max(self.align_elems);
        Loop { base, chunk }
    }

    /// Offset and length (elements) of `chunk` of `channel` in loop `lp`; the length is
    /// 0 past the end of the buffer.
    pub fn chunk_range(&self, lp: Loop, channel: usize, chunk: usize) -> (usize, usize) {
        let offset = lp.base + (channel * self.nranks + chunk) * lp.chunk;
        let len = self.count.saturating_sub(offset).min(lp.chunk);
        (offset.min(self.count), len)
    }

    /// Steps per loop.
    pub fn nsteps(&self) -> usize {
        2 * self.nranks - 1
    }

    /// The chunk the rank at ring position `pos` works on at step `s`.
    pub fn chunk_at(&self, pos: usize, s: usize) -> usize {
        let n = self.nranks;
        (pos + 2 * n - 1 - s % (2 * n)) % n
    }

    /// What step `s` does.
    pub fn step(&self, s: usize) -> Step {
        let n = self.nranks;
        Step { recv: s >= 1, send: s + 3 <= 2 * n, reduce: s < n, finish: s == n - 1, output: s + 1 >= n }
    }

    /// Slots each ring edge of a channel carries per collective.
    pub fn sends_per_collective(&self) -> usize {
        self.nloops() * (2 * self.nranks - 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Simulate the schedule symbolically: each element's value is the set of ranks
    /// whose input it contains; check that every output element ends up with all
    /// ranks, exactly once, and that sends and receives pair up.
    fn simulate(count: usize, nranks: usize, nchannels: usize, chunk_elems: usize) {
        let s = RingSchedule { count, nranks, nchannels, chunk_elems, align_elems: 1 };
        let mut out = vec![vec![0u64; count]; nranks];
        let mut written = vec![vec![0u32; count]; nranks];
        for l in 0..s.nloops() {
            let lp = s.loop_at(l);
            for c in 0..nchannels {
                // In flight: what position p sent at step s (chunk index + values).
                let mut wire: Vec<Option<(usize, Vec<u64>)>> = vec![None; nranks];
                for st in 0..s.nsteps() {
                    let step = s.step(st);
                    let mut next_wire = vec![None; nranks];
                    for p in 0..nranks {
                        let chunk = s.chunk_at(p, st);
                        let (off, len) = s.chunk_range(lp, c, chunk);
                        let mut val: Vec<u64> = if step.recv {
                            let (ck, v) =
                                wire[(p + nranks - 1) % nranks].take().expect("a slot from the previous rank");
                            assert_eq!(ck, chunk, "sender and receiver agree on the chunk");
                            assert_eq!(v.len(), len);
                            v
                        } else {
                            vec![0; len]
                        };
                        if step.reduce {
                            for v in val.iter_mut() {
                                assert_eq!(*v & (1 << p), 0, "rank {p} added twice");
                                *v |= 1 << p;
                            }
                        }
                        if step.output {
                            for (i, v) in val.iter().enumerate() {
                                out[p][off + i] = *v;
                                written[p][off + i] += 1;
                            }
                        }
                        if step.send {
                            next_wire[p] = Some((chunk, val));
                        }
                    }
                    wire = next_wire;
                }
                assert!(wire.iter().all(|w| w.is_none()));
            }
        }
        let all = (1u64 << nranks) - 1;
        for p in 0..nranks {
            for i in 0..count {
                assert_eq!(out[p][i], all, "rank {p} element {i} (count {count}, n {nranks}, c {nchannels})");
                assert_eq!(written[p][i], 1);
            }
        }
    }

    #[test]
    fn every_element_reduced_once_and_gathered() {
        for n in 1..=8 {
            for c in 1..=3 {
                for count in [0, 1, 5, 17, 64, 100, 257] {
                    simulate(count, n, c, 4);
                }
            }
        }
    }

    #[test]
    fn chunk_index_matches_ring_walk() {
        let s = RingSchedule::new(1000, 4, 4, 1, 64);
        // Position p at step 0 sends chunk p-1; it comes back reduced to p at step n-1.
        assert_eq!(s.chunk_at(2, 0), 1);
        assert_eq!(s.chunk_at(2, 3), 2);
        assert_eq!(s.chunk_at(2, 6), 3);
        assert!(s.step(3).finish && s.step(3).output && s.step(3).send);
        assert!(!s.step(6).send && s.step(6).recv);
        assert_eq!(s.chunk_elems, 16);
    }

    #[test]
    fn last_loop_spreads_the_rest() {
        let s = RingSchedule::new(1003, 4, 2, 2, 1024);
        assert_eq!(s.chunk_elems, 256);
        assert_eq!(s.nloops(), 1);
        let lp = s.loop_at(0);
        assert_eq!(lp.chunk, 252);
        let (off, len) = s.chunk_range(lp, 1, 1);
        assert_eq!((off, len), (756, 247));
    }
}
