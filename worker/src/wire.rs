//! Framing of the executor pipe protocol (`exec.proto`): each message is a u32 big-endian length
//! followed by that many bytes of protobuf.
//!
//! Both sides use this one framing: the executor with blocking `std::io` (it runs one job at a
//! time on plain threads), the worker with tokio (it drives many executors from one runtime).
//! A frame's length is checked before anything is allocated, and the body is read incrementally,
//! so a garbled length from a dying child costs an error, not a 4 GiB allocation.

use std::io::{self, Read, Write};

use prost::Message;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The largest frame either side accepts or sends: 1 GiB (artifacts travel inside `done`).
pub const MAX_FRAME: usize = 1 << 30;

/// Bytes of the length prefix.
const HEADER: usize = 4;

/// The initial buffer for a frame body; it grows as bytes actually arrive.
const INITIAL_CAPACITY: usize = 64 << 10;

/// Why a frame could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum WireError {
    #[error("pipe i/o error: {0}")]
    Io(#[from] io::Error),
    #[error("frame of {0} bytes exceeds the limit of {MAX_FRAME} bytes")]
    TooLarge(u64),
    #[error("stream ended inside a frame ({got} of {expected} bytes)")]
    Truncated { got: usize, expected: usize },
    #[error("malformed message: {0}")]
    Decode(#[from] prost::DecodeError),
}

impl From<WireError> for io::Error {
    fn from(e: WireError) -> Self {
        match e {
            WireError::Io(e) => e,
            WireError::Truncated { .. } => io::Error::new(io::ErrorKind::UnexpectedEof, e),
            other => io::Error::new(io::ErrorKind::InvalidData, other),
        }
    }
}

/// Encodes `msg` with its length prefix into one buffer, so it goes out in a single write.
pub fn encode_frame<M: Message>(msg: &M) -> Result<Vec<u8>, WireError> {
    let len = msg.encoded_len();
    if len > MAX_FRAME {
        return Err(WireError::TooLarge(len as u64));
    }
    let mut buf = Vec::with_capacity(HEADER + len);
    buf.extend_from_slice(&(len as u32).to_be_bytes());
    // Cannot fail: the buffer has room for `len` more bytes (and a Vec grows anyway).
    msg.encode(&mut buf).map_err(|e| WireError::Io(io::Error::other(e)))?;
    Ok(buf)
}

fn body_len(header: [u8; HEADER]) -> Result<usize, WireError> {
    let len = u32::from_be_bytes(header) as usize;
    if len > MAX_FRAME {
        return Err(WireError::TooLarge(len as u64));
    }
    Ok(len)
}

/// Writes one frame and flushes, so the peer sees it at once.
pub fn write_frame<W: Write, M: Message>(w: &mut W, msg: &M) -> Result<(), WireError> {
    w.write_all(&encode_frame(msg)?)?;
    w.flush()?;
    Ok(())
}

/// Reads one frame. `Ok(None)` is a clean end of stream (between frames); an end inside a
/// frame is [`WireError::Truncated`].
pub fn read_frame<R: Read, M: Message + Default>(r: &mut R) -> Result<Option<M>, WireError> {
    let mut header = [0u8; HEADER];
    let mut got = 0;
    while got < HEADER {
        match r.read(&mut header[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(WireError::Truncated { got, expected: HEADER }),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    let len = body_len(header)?;
    let mut body = Vec::with_capacity(len.min(INITIAL_CAPACITY));
    r.take(len as u64).read_to_end(&mut body)?;
    if body.len() < len {
        return Err(WireError::Truncated { got: HEADER + body.len(), expected: HEADER + len });
    }
    Ok(Some(M::decode(body.as_slice())?))
}

/// Async [`write_frame`]: writes one frame and flushes.
pub async fn write_frame_async<W, M>(w: &mut W, msg: &M) -> Result<(), WireError>
where
    W: AsyncWrite + Unpin,
    M: Message,
{
    w.write_all(&encode_frame(msg)?).await?;
    w.flush().await?;
    Ok(())
}

/// Async [`read_frame`]. Not cancel-safe: a frame partly read when the future is dropped is
/// lost, so read from one task that owns the stream.
pub async fn read_frame_async<R, M>(r: &mut R) -> Result<Option<M>, WireError>
where
    R: AsyncRead + Unpin,
    M: Message + Default,
{
    let mut header = [0u8; HEADER];
    let mut got = 0;
    while got < HEADER {
        match r.read(&mut header[got..]).await {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(WireError::Truncated { got, expected: HEADER }),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e.into()),
        }
    }
    let len = body_len(header)?;
    let mut body = Vec::with_capacity(len.min(INITIAL_CAPACITY));
    (&mut *r).take(len as u64).read_to_end(&mut body).await?;
    if body.len() < len {
        return Err(WireError::Truncated { got: HEADER + body.len(), expected: HEADER + len });
    }
    Ok(Some(M::decode(body.as_slice())?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigor_proto::{exec_event, exec_request, ExecEvent, ExecJob, ExecRequest, ExecResult, JobSpec, Metric};

    fn request() -> ExecRequest {
        ExecRequest {
            kind: Some(exec_request::Kind::Run(ExecJob {
                spec: Some(JobSpec { job_id: "abc".into(), kind: "noop".into(), seed: 42, ..Default::default() }),
                inputs: vec![],
                scratch: "/tmp/x".into(),
            })),
        }
    }

    fn event() -> ExecEvent {
        ExecEvent {
            kind: Some(exec_event::Kind::Done(ExecResult {
                ok: true,
                metrics: vec![Metric { name: "value".into(), value: 0.5 }],
                ..Default::default()
            })),
        }
    }

    #[test]
    fn sync_round_trip_of_several_frames_then_clean_eof() {
        let mut buf = Vec::new();
        write_frame(&mut buf, &request()).unwrap();
        write_frame(&mut buf, &ExecRequest { kind: Some(exec_request::Kind::Cancel(Default::default())) }).unwrap();
        write_frame(&mut buf, &ExecRequest::default()).unwrap(); // an empty message is a 4-byte frame
        let mut r = buf.as_slice();
        assert_eq!(read_frame::<_, ExecRequest>(&mut r).unwrap(), Some(request()));
        assert!(matches!(
            read_frame::<_, ExecRequest>(&mut r).unwrap().unwrap().kind,
            Some(exec_request::Kind::Cancel(_))
        ));
        assert_eq!(read_frame::<_, ExecRequest>(&mut r).unwrap(), Some(ExecRequest::default()));
        assert_eq!(read_frame::<_, ExecRequest>(&mut r).unwrap(), None);
    }

    #[tokio::test]
    async fn async_round_trip_and_cross_compatibility_with_sync() {
        let mut buf = Vec::new();
        write_frame_async(&mut buf, &event()).await.unwrap();
        write_frame(&mut buf, &event()).unwrap();
        let mut r = buf.as_slice();
        assert_eq!(read_frame_async::<_, ExecEvent>(&mut r).await.unwrap(), Some(event()));
        assert_eq!(read_frame::<_, ExecEvent>(&mut r).unwrap(), Some(event()));
        assert_eq!(read_frame_async::<_, ExecEvent>(&mut r).await.unwrap(), None);
    }

    #[tokio::test]
    async fn oversized_frame_is_rejected_before_allocating() {
        // Claims ~4 GiB but carries nothing: must fail on the length alone.
        let frame = u32::MAX.to_be_bytes();
        let err = read_frame::<_, ExecEvent>(&mut frame.as_slice()).unwrap_err();
        assert!(matches!(err, WireError::TooLarge(n) if n == u32::MAX as u64), "{err}");
        let err = read_frame_async::<_, ExecEvent>(&mut frame.as_slice()).await.unwrap_err();
        assert!(matches!(err, WireError::TooLarge(_)), "{err}");
        // Just over the limit is rejected; the limit itself is only a (truncated) body here.
        let over = ((MAX_FRAME + 1) as u32).to_be_bytes();
        assert!(matches!(read_frame::<_, ExecEvent>(&mut over.as_slice()), Err(WireError::TooLarge(_))));
        let at = (MAX_FRAME as u32).to_be_bytes();
        assert!(matches!(read_frame::<_, ExecEvent>(&mut at.as_slice()), Err(WireError::Truncated { .. })));
    }

    #[tokio::test]
    async fn truncated_frames_are_errors_not_panics() {
        let full = encode_frame(&event()).unwrap();
        for cut in 1..full.len() {
            let part = &full[..cut];
            let err = read_frame::<_, ExecEvent>(&mut &part[..]).unwrap_err();
            assert!(matches!(err, WireError::Truncated { .. }), "cut at {cut}: {err}");
            let err = read_frame_async::<_, ExecEvent>(&mut &part[..]).await.unwrap_err();
            assert!(matches!(err, WireError::Truncated { .. }), "cut at {cut}: {err}");
            assert_eq!(io::Error::from(err).kind(), io::ErrorKind::UnexpectedEof);
        }
    }

    #[test]
    fn garbage_body_is_a_decode_error() {
        let mut frame = 3u32.to_be_bytes().to_vec();
        frame.extend_from_slice(&[0xff, 0xff, 0xff]);
        let err = read_frame::<_, ExecEvent>(&mut frame.as_slice()).unwrap_err();
        assert!(matches!(err, WireError::Decode(_)), "{err}");
        assert_eq!(io::Error::from(err).kind(), io::ErrorKind::InvalidData);
    }
}
