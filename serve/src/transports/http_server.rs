//! The accept loop: hyper's HTTP/1 connections with the limits `axum::serve` does not set.
//!
//! - a **connection cap** ([`Limits::max_connections`]): past it a new connection is closed at
//!   once (and counted), so slow clients cannot take every file descriptor;
//! - a **header-read timeout**, which in hyper also bounds how long an idle keep-alive
//!   connection waits for its next request (the timer starts whenever a request head is
//!   awaited);
//! - a **body-read timeout** (`tower-http`), so a client that sends its headers and then
//!   trickles the body cannot hold a worker;
//! - graceful shutdown: on SIGINT/SIGTERM no new connection is accepted and open ones finish
//!   their request.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::app::{App, Limits};

/// Serves `router` on `listener` until `shutdown` resolves.
pub async fn serve_connections(
    listener: TcpListener,
    router: Router,
    limits: &Limits,
    app: Arc<App>,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let router = router.layer(tower_http::timeout::RequestBodyTimeoutLayer::new(limits.body_read_timeout));
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    // EMFILE and friends: back off briefly instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            app.metrics.refuse("http", "connection_cap");
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone().layer(axum::Extension(axum::extract::ConnectInfo(peer))));
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder.timer(TokioTimer::new()).header_read_timeout(limits.header_read_timeout);
        let conn = builder.serve_connection(TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
        });
    }
    drop(listener);
    // Open connections finish what they are answering, within a bound.
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(Duration::from_secs(10)) => {}
    }
    Ok(())
}
