//! TensorBoard's event files, written by hand: a file is a sequence of
//! TFRecord records, each holding one `tensorflow.Event` protocol buffer.
//!
//! A record is the data's length (u64, little-endian), the masked CRC-32C
//! of those 8 bytes (u32), the data, and the masked CRC-32C of the data.
//! The events used here have three fields: `wall_time` (1, double), `step`
//! (2, int64) and either `file_version` (3, the string `brain.Event:2`,
//! first in every file) or `summary` (5): a `Summary` of repeated `Value`s
//! (field 1), each a `tag` (1, string) and a `simple_value` (2, float),
//! which TensorBoard's scalar dashboard shows.

use std::io::Write;

/// Field numbers and wire types of the protocol buffers, as tag bytes.
const WALL_TIME: u8 = 1 << 3 | 1; // double: 64-bit
const STEP: u8 = 2 << 3; // int64: varint
const FILE_VERSION: u8 = 3 << 3 | 2; // string: length-delimited
const SUMMARY: u8 = 5 << 3 | 2;
const SUMMARY_VALUE: u8 = 1 << 3 | 2;
const VALUE_TAG: u8 = 1 << 3 | 2;
const VALUE_SIMPLE_VALUE: u8 = 2 << 3 | 5; // float: 32-bit

/// What the first event of every file says.
pub const FILE_VERSION_TEXT: &str = "brain.Event:2";

/// The CRC-32C (Castagnoli) table, reflected polynomial 0x82F63B78.
const CRC32C_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut crc = i as u32;
        let mut bit = 0;
        while bit < 8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
            bit += 1;
        }
        table[i] = crc;
        i += 1;
    }
    table
};

/// CRC-32C of `bytes`.
pub fn crc32c(bytes: &[u8]) -> u32 {
    !bytes.iter().fold(!0u32, |crc, &b| {
        CRC32C_TABLE[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8)
    })
}

/// The CRC as TFRecord stores it: rotated and offset, so that the CRC of
/// data that holds CRCs is not degenerate.
pub fn masked_crc(bytes: &[u8]) -> u32 {
    let crc = crc32c(bytes);
    (crc.rotate_right(15)).wrapping_add(0xA282_EAD8)
}

fn varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7F) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn length_delimited(out: &mut Vec<u8>, tag: u8, bytes: &[u8]) {
    out.push(tag);
    varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// One event: when, at which step, and what.
fn event(wall_time: f64, step: u64, body: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = vec![WALL_TIME];
    out.extend_from_slice(&wall_time.to_le_bytes());
    out.push(STEP);
    varint(&mut out, step);
    body(&mut out);
    out
}

/// The event that opens a file.
pub fn version_event(wall_time: f64) -> Vec<u8> {
    event(wall_time, 0, |out| {
        length_delimited(out, FILE_VERSION, FILE_VERSION_TEXT.as_bytes());
    })
}

/// An event of scalars, one value per `(tag, value)`.
pub fn scalars_event(wall_time: f64, step: u64, scalars: &[(String, f32)]) -> Vec<u8> {
    let mut summary = Vec::new();
    for (tag, value) in scalars {
        let mut entry = Vec::new();
        length_delimited(&mut entry, VALUE_TAG, tag.as_bytes());
        entry.push(VALUE_SIMPLE_VALUE);
        entry.extend_from_slice(&value.to_le_bytes());
        length_delimited(&mut summary, SUMMARY_VALUE, &entry);
    }
    event(wall_time, step, |out| {
        length_delimited(out, SUMMARY, &summary)
    })
}

/// Writes `data` as one TFRecord record.
pub fn write_record(out: &mut impl Write, data: &[u8]) -> std::io::Result<()> {
    let length = (data.len() as u64).to_le_bytes();
    out.write_all(&length)?;
    out.write_all(&masked_crc(&length).to_le_bytes())?;
    out.write_all(data)?;
    out.write_all(&masked_crc(data).to_le_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check values of CRC-32C (RFC 3720's appendix B.4 and the
    /// catalogue's "123456789").
    #[test]
    fn crc32c_matches_its_published_check_values() {
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(crc32c(&[0u8; 32]), 0x8A91_36AA);
        assert_eq!(crc32c(&[0xFFu8; 32]), 0x62A8_AB43);
        let ascending: Vec<u8> = (0..32).collect();
        assert_eq!(crc32c(&ascending), 0x46DD_794E);
        assert_eq!(crc32c(b""), 0);
    }

    /// A record of the version event (26 bytes), laid out byte by byte.
    #[test]
    fn a_record_is_length_crc_data_crc() {
        let data = version_event(1.5);
        assert_eq!(data[0], 0x09);
        assert_eq!(&data[1..9], &1.5f64.to_le_bytes());
        assert_eq!(&data[9..11], &[0x10, 0x00]);
        assert_eq!(data[11], 0x1A);
        assert_eq!(usize::from(data[12]), FILE_VERSION_TEXT.len());
        assert_eq!(&data[13..], FILE_VERSION_TEXT.as_bytes());
        let mut record = Vec::new();
        write_record(&mut record, &data).unwrap();
        assert_eq!(record.len(), 8 + 4 + data.len() + 4);
        assert_eq!(&record[..8], &(data.len() as u64).to_le_bytes());
        let masked = u32::from_le_bytes(record[8..12].try_into().unwrap());
        let crc = masked.wrapping_sub(0xA282_EAD8).rotate_left(15);
        assert_eq!(crc, crc32c(&record[..8]));
        assert_eq!(&record[12..12 + data.len()], &data[..]);
    }

    #[test]
    fn varints_take_seven_bits_a_byte() {
        let mut out = Vec::new();
        varint(&mut out, 300);
        assert_eq!(out, [0xAC, 0x02]);
        out.clear();
        varint(&mut out, u64::MAX);
        assert_eq!(out.len(), 10);
        assert_eq!(out[9], 0x01);
    }
}
