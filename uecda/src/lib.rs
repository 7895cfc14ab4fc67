//! The UECda computer Daihinmin protocol (version 20070, and the older
//! 20060 the official server also takes): the 8 × 15
//! tables it exchanges ([`table`]), a client that plays any rnad player on
//! an official server ([`client`], the `rnad-uecda-client` binary), and a
//! server over the games layer's rules for testing clients ([`server`],
//! `rnad-uecda-server`).

pub mod client;
pub mod server;
pub mod table;
