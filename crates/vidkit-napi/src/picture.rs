//! `Picture`: a screenshot already converted to the encoder's yuv420p, kept in native memory and
//! handed to JavaScript as a small object rather than a Buffer. A Buffer of a 1080p picture is
//! 3 MB that V8 counts as external memory: at 30 a second that started a full mark-compact every
//! twenty or so frames (29 in a 300-frame render, about 1 s of CPU on two cores), and a push then
//! copied it. A picture's pixels go to the encoder without a copy and are freed once it has
//! decoded them and no handle holds them, whenever the garbage collector runs.

use std::sync::Arc;

use napi_derive::napi;

/// A screenshot converted to the encoder's yuv420p, held in native memory; a push moves it.
#[napi]
pub struct Picture {
    /// `None` once pushed or released.
    bytes: Option<Arc<Vec<u8>>>,
}

impl Picture {
    pub(crate) fn new(bytes: Vec<u8>) -> Self {
        Picture {
            bytes: Some(Arc::new(bytes)),
        }
    }

    /// The pixels, taken out of this handle: a pushed picture belongs to its encoder.
    pub(crate) fn take(&mut self) -> Option<Arc<Vec<u8>>> {
        self.bytes.take()
    }
}

#[napi]
impl Picture {
    /// Bytes of pixels this handle holds; 0 once it was pushed or released.
    #[napi(getter)]
    pub fn byte_length(&self) -> u32 {
        self.bytes.as_ref().map_or(0, |b| b.len() as u32)
    }

    /// A second handle on the same pixels, without a copy: one to push, one to keep.
    #[napi]
    pub fn share(&self) -> Picture {
        Picture {
            bytes: self.bytes.clone(),
        }
    }

    /// Lets go of this handle's pixels now rather than when the object is collected.
    #[napi]
    pub fn release(&mut self) {
        self.bytes = None;
    }
}
