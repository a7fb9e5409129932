//! A minimal cancellation token (tokio-util is not a dependency): a flag plus a [`Notify`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::Notify;

/// Asks a running job to stop. Clones share one state; once cancelled it stays cancelled.
#[derive(Clone, Default, Debug)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

#[derive(Default, Debug)]
struct Inner {
    cancelled: AtomicBool,
    notify: Notify,
}

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    /// Cancels, waking every task waiting in [`CancelToken::cancelled`].
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::SeqCst);
        self.inner.notify.notify_waiters();
    }

    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Completes once the token is cancelled (at once if it already is).
    pub async fn cancelled(&self) {
        loop {
            // Register before checking the flag, so a `cancel` between the two is not missed.
            let notified = self.inner.notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn wakes_waiters_and_stays_cancelled() {
        let token = CancelToken::new();
        assert!(!token.is_cancelled());
        let waiter = tokio::spawn({
            let token = token.clone();
            async move { token.cancelled().await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        token.cancel();
        tokio::time::timeout(Duration::from_secs(5), waiter).await.unwrap().unwrap();
        assert!(token.is_cancelled());
        // Already cancelled: completes at once.
        tokio::time::timeout(Duration::from_millis(100), token.cancelled()).await.unwrap();
    }
}
