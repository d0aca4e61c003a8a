//! `InputBufferCore`: an input's bytes written by JS straight into the
//! WebAssembly memory where the call that takes them will read or keep
//! them, so they cross once (`js/input.js`). The buffer is allocated under
//! the memory limit; a call given it takes its first `len` bytes (a
//! `SessionIndex` keeps them as a chunk) and leaves it empty.

use agent_replay::error::{Error, ErrorCode};
use agent_replay::memory;
use wasm_bindgen::prelude::*;

use crate::index::SessionIndex;
use crate::{budget, js_error, SessionState};

#[wasm_bindgen(js_name = InputBufferCore)]
pub struct InputBuffer {
    bytes: Vec<u8>,
}

#[wasm_bindgen(js_class = InputBufferCore)]
impl InputBuffer {
    /// Room for `capacity` bytes (JS may fill fewer), refused past the
    /// limit. Not zeroed: that would write the memory once more than the
    /// copy it saves.
    #[wasm_bindgen(constructor)]
    pub fn new(capacity: u32) -> Result<InputBuffer, JsValue> {
        budget::guard("allocInput", || {
            let mut bytes = Vec::new();
            // Refused: the budget's verdict answers `limit_exceeded`.
            let _ = memory::fallibly(&mut || bytes.try_reserve_exact(capacity as usize).is_ok());
            Ok(InputBuffer { bytes })
        })
    }

    /// Where the bytes start in linear memory (JS's view's offset).
    #[wasm_bindgen(getter)]
    pub fn ptr(&self) -> u32 {
        self.bytes.as_ptr() as u32
    }
}

impl InputBuffer {
    /// The first `len` bytes, taken: the buffer is left empty, so a second
    /// use finds no room to give.
    fn take(&mut self, len: u32) -> Result<Vec<u8>, JsValue> {
        let len = len as usize;
        if len > self.bytes.capacity() {
            return Err(js_error(Error::new(
                ErrorCode::InvalidInput,
                "an input longer than its buffer",
            )));
        }
        let mut bytes = std::mem::take(&mut self.bytes);
        // SAFETY: `len` is within the capacity, and every byte of linear
        // memory holds a value (JS wrote it, or it holds what it held):
        // u8 has no invalid ones.
        unsafe { bytes.set_len(len) };
        Ok(bytes)
    }
}

#[wasm_bindgen(js_name = rebuildOsSnapshotInput)]
pub fn rebuild_os_snapshot_input(
    input: &mut InputBuffer,
    len: u32,
    strict: bool,
    full_check: bool,
) -> Result<String, JsValue> {
    crate::rebuild_os_snapshot_bytes(&input.take(len)?, strict, full_check)
}

/// The WebAssembly memory, for JS's views of input buffers.
#[wasm_bindgen(js_name = wasmMemory)]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

#[wasm_bindgen(js_class = SessionStateCore)]
impl SessionState {
    #[wasm_bindgen(js_name = applyInput)]
    pub fn apply_input(
        &mut self,
        input: &mut InputBuffer,
        len: u32,
        strict: bool,
    ) -> Result<String, JsValue> {
        self.apply_bytes(&input.take(len)?, strict)
    }
}

#[wasm_bindgen(js_class = SessionIndexCore)]
impl SessionIndex {
    /// Indexes a whole log given in an input buffer, kept as it lies.
    #[wasm_bindgen(js_name = applyInput)]
    pub fn apply_input(
        &mut self,
        input: &mut InputBuffer,
        len: u32,
        strict: bool,
    ) -> Result<(), JsValue> {
        self.apply_bytes(input.take(len)?, strict)
    }

    /// Indexes the next chunk, given in an input buffer, kept as it lies.
    #[wasm_bindgen(js_name = writeInput)]
    pub fn write_input(
        &mut self,
        input: &mut InputBuffer,
        len: u32,
        strict: bool,
    ) -> Result<(), JsValue> {
        self.write(input.take(len)?, strict)
    }
}
