//! Any bytes, any framing: loading never panics, and loading in chunks
//! (split where the first byte says) gives exactly the one-shot result.
#![no_main]
use agent_replay::log::{read_bytes, LogOptions, LogReader};
use agent_replay::SessionEvent;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&split, bytes)) = data.split_first() else { return };
    for strict in [false, true] {
        let opts = LogOptions { strict, ..Default::default() };
        let mut whole = Vec::new();
        let one_shot =
            read_bytes(bytes, opts, &mut |t: &str, _: &SessionEvent<'_>| whole.push(t.to_string()));
        let mut chunked = Vec::new();
        let mut reader = LogReader::new(opts);
        let step = usize::from(split).max(1);
        let mut result = Ok(());
        for chunk in bytes.chunks(step) {
            result = reader
                .push(chunk, &mut |t: &str, _: &SessionEvent<'_>| chunked.push(t.to_string()));
            if result.is_err() {
                break;
            }
        }
        if result.is_ok() {
            result =
                reader.finish(&mut |t: &str, _: &SessionEvent<'_>| chunked.push(t.to_string()));
        }
        if !strict {
            let report = one_shot.expect("tolerant loading does not fail");
            assert!(result.is_ok());
            assert_eq!(whole, chunked);
            assert_eq!(report, reader.report());
        }
    }
});
