//! The typed model of an MSCCL-IR collective program: what the reader makes of a file
//! and what the writer, the checker, `algo show` and the bench work on.
//!
//! A program is a header (collective, protocol, chunks per loop, modes, byte range)
//! and, per GPU, its buffer sizes and its thread blocks; a thread block is a send
//! peer, a receive peer, a channel and an ordered list of steps. Everything is typed:
//! no attribute text and no `-1` sentinels reach past the reader.

use std::fmt;

/// The collective a program implements (`coll`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Collective {
    AllReduce,
    AllGather,
    ReduceScatter,
    AllToAll,
    Broadcast,
    Reduce,
    Send,
    Recv,
    Gather,
    Scatter,
    AllToAllV,
    /// The older runtime's user-defined collective: no definition to check against.
    Custom,
}

impl Collective {
    /// The name a canonical file carries (the legacy runtime spells reduce-scatter
    /// `reduce_scatter`; the writer is told which runtime it writes for).
    pub fn xml_name(self) -> &'static str {
        match self {
            Collective::AllReduce => "allreduce",
            Collective::AllGather => "allgather",
            Collective::ReduceScatter => "reducescatter",
            Collective::AllToAll => "alltoall",
            Collective::Broadcast => "broadcast",
            Collective::Reduce => "reduce",
            Collective::Send => "send",
            Collective::Recv => "recv",
            Collective::Gather => "gather",
            Collective::Scatter => "scatter",
            Collective::AllToAllV => "alltoallv",
            Collective::Custom => "custom",
        }
    }

    /// The runtime's size multiplier: the user's per-rank count times this is the
    /// element count of the larger buffer (the one `nchunksperloop` divides).
    pub fn size_multiplier(self, ngpus: u32) -> u64 {
        match self {
            Collective::AllGather | Collective::ReduceScatter | Collective::AllToAll => u64::from(ngpus),
            _ => 1,
        }
    }
}

impl fmt::Display for Collective {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.xml_name())
    }
}

/// The protocol the program runs with (`proto`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Protocol {
    Simple,
    LL,
    LL128,
}

impl Protocol {
    pub fn xml_name(self) -> &'static str {
        match self {
            Protocol::Simple => "Simple",
            Protocol::LL => "LL",
            Protocol::LL128 => "LL128",
        }
    }

    /// FIFO slots one primitive call occupies, and how they are taken: Simple moves a
    /// call as 2 slices of 2 slots each; LL and LL128 move a call as 1 slice of 1 slot.
    pub fn slices_per_call(self) -> u32 {
        match self {
            Protocol::Simple => 2,
            Protocol::LL | Protocol::LL128 => 1,
        }
    }

    pub fn slots_per_slice(self) -> u32 {
        match self {
            Protocol::Simple => 2,
            Protocol::LL | Protocol::LL128 => 1,
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.xml_name())
    }
}

/// One of a rank's three buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Buffer {
    Input,
    Output,
    Scratch,
}

impl Buffer {
    pub fn letter(self) -> &'static str {
        match self {
            Buffer::Input => "i",
            Buffer::Output => "o",
            Buffer::Scratch => "s",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Buffer::Input => "input",
            Buffer::Output => "output",
            Buffer::Scratch => "scratch",
        }
    }
}

/// The step types of MSCCL-IR (`type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    /// `s`: send the source chunks.
    Send,
    /// `r`: receive into the destination.
    Recv,
    /// `rcs`: receive, copy to the destination, send on.
    RecvCopySend,
    /// `rrs`: receive, reduce with the local source, send on (nothing written locally).
    RecvReduceSend,
    /// `rrc`: receive, reduce with the local source, write the destination.
    RecvReduceCopy,
    /// `rrcs`: receive, reduce with the local source, write the destination, send on.
    RecvReduceCopySend,
    /// `cpy`: local copy.
    Copy,
    /// `re`: local reduction, destination = destination (+) source.
    Reduce,
    /// `nop`: no data; carries a dependency for the next real step.
    Nop,
    /// `ra`: accepted by the older runtime's parser, executed by none of them.
    ResAdd,
}

impl StepKind {
    pub fn xml_name(self) -> &'static str {
        match self {
            StepKind::Send => "s",
            StepKind::Recv => "r",
            StepKind::RecvCopySend => "rcs",
            StepKind::RecvReduceSend => "rrs",
            StepKind::RecvReduceCopy => "rrc",
            StepKind::RecvReduceCopySend => "rrcs",
            StepKind::Copy => "cpy",
            StepKind::Reduce => "re",
            StepKind::Nop => "nop",
            StepKind::ResAdd => "ra",
        }
    }

    pub fn from_xml(s: &str) -> Option<StepKind> {
        Some(match s {
            "s" => StepKind::Send,
            "r" => StepKind::Recv,
            "rcs" => StepKind::RecvCopySend,
            "rrs" => StepKind::RecvReduceSend,
            "rrc" => StepKind::RecvReduceCopy,
            "rrcs" => StepKind::RecvReduceCopySend,
            "cpy" => StepKind::Copy,
            "re" => StepKind::Reduce,
            "nop" => StepKind::Nop,
            "ra" => StepKind::ResAdd,
            _ => return None,
        })
    }

    /// Whether the step sends on its thread block's send connection.
    pub fn sends(self) -> bool {
        matches!(
            self,
            StepKind::Send | StepKind::RecvCopySend | StepKind::RecvReduceSend | StepKind::RecvReduceCopySend
        )
    }

    /// Whether the step receives from its thread block's receive connection.
    pub fn receives(self) -> bool {
        matches!(
            self,
            StepKind::Recv
                | StepKind::RecvCopySend
                | StepKind::RecvReduceSend
                | StepKind::RecvReduceCopy
                | StepKind::RecvReduceCopySend
        )
    }

    /// Whether the step reads its local source (srcbuf/srcoff) at run time.
    pub fn reads_src(self) -> bool {
        matches!(
            self,
            StepKind::Send
                | StepKind::RecvReduceSend
                | StepKind::RecvReduceCopy
                | StepKind::RecvReduceCopySend
                | StepKind::Copy
                | StepKind::Reduce
        )
    }

    /// Whether the step writes its destination (dstbuf/dstoff).
    pub fn writes_dst(self) -> bool {
        matches!(
            self,
            StepKind::Recv
                | StepKind::RecvCopySend
                | StepKind::RecvReduceCopy
                | StepKind::RecvReduceCopySend
                | StepKind::Copy
                | StepKind::Reduce
        )
    }

    /// Whether the step reduces (needs a reduction operator).
    pub fn reduces(self) -> bool {
        matches!(
            self,
            StepKind::RecvReduceSend | StepKind::RecvReduceCopy | StepKind::RecvReduceCopySend | StepKind::Reduce
        )
    }

    /// The fused receive-and-send steps RCCL's kernels are built without.
    pub fn is_fused(self) -> bool {
        matches!(
            self,
            StepKind::RecvCopySend | StepKind::RecvReduceSend | StepKind::RecvReduceCopy | StepKind::RecvReduceCopySend
        )
    }
}

impl fmt::Display for StepKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.xml_name())
    }
}

/// A place in a rank's buffers: a buffer and a chunk offset. `off` is `None` for the
/// `-1` a producer writes on a side the step does not use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Slot {
    pub buf: Buffer,
    pub off: Option<u32>,
}

/// A dependency: wait until thread block `tb` of the same rank has completed its step
/// `step` (the runtime's step number) in the same loop iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Dep {
    pub tb: u32,
    pub step: u32,
}

/// One step of a thread block, as written.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Step {
    /// The `s` attribute as written (the runtime numbers steps by position instead).
    pub s: u32,
    pub kind: StepKind,
    pub src: Slot,
    pub dst: Slot,
    /// Consecutive chunks moved (`cnt`).
    pub count: u32,
    pub dep: Option<Dep>,
    /// `hasdep="1"`: another thread block waits on this step, so it publishes.
    pub has_dep: bool,
    /// The line of the file the step is on (0 for programs topo made).
    #[serde(skip)]
    pub line: u32,
}

/// One thread block: a CUDA block running its steps in order.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ThreadBlock {
    pub id: u32,
    pub send: Option<u32>,
    pub recv: Option<u32>,
    pub chan: u32,
    pub steps: Vec<Step>,
    #[serde(skip)]
    pub line: u32,
}

/// One rank of the program.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Gpu {
    pub id: u32,
    pub input_chunks: u32,
    pub output_chunks: u32,
    pub scratch_chunks: u32,
    /// Thread blocks in id order (the reader sorts them; document order does not matter
    /// to the runtime).
    pub tbs: Vec<ThreadBlock>,
    #[serde(skip)]
    pub line: u32,
}

impl Gpu {
    /// The chunk count of one of this rank's buffers.
    pub fn chunks(&self, buf: Buffer) -> u32 {
        match buf {
            Buffer::Input => self.input_chunks,
            Buffer::Output => self.output_chunks,
            Buffer::Scratch => self.scratch_chunks,
        }
    }

    pub fn tb(&self, id: u32) -> Option<&ThreadBlock> {
        self.tbs.iter().find(|t| t.id == id)
    }
}

/// The `<algo>` element's attributes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Header {
    pub name: String,
    pub coll: Collective,
    pub proto: Protocol,
    pub nchannels: u32,
    pub chunks_per_loop: u32,
    pub ngpus: u32,
    pub inplace: bool,
    /// `None` when the file has no `outofplace` (the older runtime's header).
    pub outofplace: Option<bool>,
    pub min_bytes: Option<i64>,
    pub max_bytes: Option<i64>,
    /// Other attributes, kept in order and written back after the known ones.
    pub extra: Vec<(String, String)>,
}

impl Header {
    /// The modes the header declares, in-place first. A header without `outofplace`
    /// (the older runtime's, which selects by `inplace` alone) is for in-place calls
    /// when `inplace` is set and for out-of-place calls when it is not.
    pub fn modes(&self) -> Vec<Mode> {
        if self.outofplace.is_none() {
            return vec![if self.inplace { Mode::InPlace } else { Mode::OutOfPlace }];
        }
        let mut v = Vec::new();
        if self.inplace {
            v.push(Mode::InPlace);
        }
        if self.outofplace == Some(true) {
            v.push(Mode::OutOfPlace);
        }
        v
    }
}

/// In-place (send and receive buffers alias as the runtime defines it) or out-of-place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    InPlace,
    OutOfPlace,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::InPlace => "in-place",
            Mode::OutOfPlace => "out-of-place",
        })
    }
}

/// A whole program.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Program {
    pub header: Header,
    /// GPUs in id order.
    pub gpus: Vec<Gpu>,
}

/// A connection: the FIFO the runtime sets up for (channel, sender -> receiver).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Conn {
    pub chan: u32,
    pub from: u32,
    pub to: u32,
}

impl fmt::Display for Conn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "gpu {} -> gpu {} on channel {}", self.from, self.to, self.chan)
    }
}

impl Program {
    pub fn gpu(&self, id: u32) -> Option<&Gpu> {
        self.gpus.iter().find(|g| g.id == id)
    }

    /// The most thread blocks on one GPU, and the most steps in one thread block.
    pub fn shape(&self) -> (usize, usize) {
        let tbs = self.gpus.iter().map(|g| g.tbs.len()).max().unwrap_or(0);
        let steps = self.gpus.iter().flat_map(|g| &g.tbs).map(|t| t.steps.len()).max().unwrap_or(0);
        (tbs, steps)
    }

    /// Every step, with its GPU and thread block.
    pub fn steps(&self) -> impl Iterator<Item = (&Gpu, &ThreadBlock, usize, &Step)> {
        self.gpus
            .iter()
            .flat_map(|g| g.tbs.iter().flat_map(move |t| t.steps.iter().enumerate().map(move |(i, s)| (g, t, i, s))))
    }
}
