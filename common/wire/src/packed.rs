//! Vectors of numbers as one byte string on the wire.
//!
//! serde hands a `Vec<f32>` to bincode one element at a time, and reading
//! it back allocates and checks per element: with a Leduc submit that was
//! most of the learner's RPC thread (40 % of its samples in element-wise
//! deserialisation, 15 % in allocation), and the actor's encoding cost it
//! as much. As `#[serde(with = "...")]` modules these write a vector as
//! one bincode byte string (its length, then the values' little-endian
//! bytes) and read it back in one pass, the same on every host.
//!
//! They are for the wire only: formats that write bytes as a sequence
//! (JSON) cannot read them back. The transport decodes from the whole
//! frame in memory, so a declared length past the frame's end is refused
//! before anything is allocated; a decoder reading from a stream would
//! have to bound lengths itself.

use serde::de::{Error, SeqAccess, Visitor};
use serde::{Deserializer, Serialize, Serializer};

/// `Vec<f32>` as its little-endian bytes.
pub mod f32s {
    use super::*;

    /// Writes `values` as one byte string.
    pub fn serialize<S: Serializer>(values: &[f32], serializer: S) -> Result<S::Ok, S::Error> {
        if cfg!(target_endian = "little") {
            serializer.serialize_bytes(bytemuck::cast_slice(values))
        } else {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            serializer.serialize_bytes(&bytes)
        }
    }

    /// Reads what [`serialize`] wrote; a length that is not a whole number
    /// of floats is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<f32>, D::Error> {
        deserializer.deserialize_bytes(FloatsVisitor)
    }
}

/// `Vec<f32>` as one byte a value where most values are whole numbers
/// from 0 to 255 (the card bits of Kuhn, Leduc and Daihinmin inputs): one
/// byte string, a tag byte first. Tag 1: the number of exceptions (`u32`),
/// each exception's index (`u32`, increasing) and value (`f32`), then a
/// byte a value (0 where an exception stands). Tag 0, where exceptions
/// would cost more than floats: the values as little-endian floats. Exact
/// either way: a value is a byte only when that byte reads back to the
/// same bits. A frame of `L` bytes decodes to at most `4 L` bytes of
/// floats.
pub mod compact_f32s {
    use super::*;

    const FLOATS: u8 = 0;
    const BYTES: u8 = 1;

    /// `v` as a byte, where that is exact.
    fn as_byte(v: f32) -> Option<u8> {
        let b = v as u8;
        (f32::from(b).to_bits() == v.to_bits()).then_some(b)
    }

    /// Writes `values` as one tagged byte string.
    pub fn serialize<S: Serializer>(values: &[f32], serializer: S) -> Result<S::Ok, S::Error> {
        let exceptions: Vec<(usize, f32)> = values
            .iter()
            .enumerate()
            .filter(|(_, &v)| as_byte(v).is_none())
            .map(|(i, &v)| (i, v))
            .collect();
        let index = |i: usize| u32::try_from(i).expect("under 2^32 values");
        let mut out;
        if 4 + 8 * exceptions.len() < 3 * values.len() {
            out = Vec::with_capacity(5 + 8 * exceptions.len() + values.len());
            out.push(BYTES);
            out.extend_from_slice(&index(exceptions.len()).to_le_bytes());
            for &(i, v) in &exceptions {
                out.extend_from_slice(&index(i).to_le_bytes());
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend(values.iter().map(|&v| as_byte(v).unwrap_or(0)));
        } else {
            out = Vec::with_capacity(1 + 4 * values.len());
            out.push(FLOATS);
            out.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        }
        serializer.serialize_bytes(&out)
    }

    /// Reads what [`serialize`] wrote; a missing or unknown tag, a
    /// truncated list of exceptions, indices out of order or range, or
    /// floats that are not whole, is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<f32>, D::Error> {
        deserializer.deserialize_bytes(CompactVisitor)
    }

    struct CompactVisitor;

    impl Visitor<'_> for CompactVisitor {
        type Value = Vec<f32>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a tagged byte string of f32 values")
        }

        fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<f32>, E> {
            match bytes.split_first() {
                Some((&BYTES, rest)) => with_exceptions(rest),
                Some((&FLOATS, values)) => FloatsVisitor.visit_bytes(values),
                Some((tag, _)) => Err(E::custom(format!(
                    "a compact f32 vector tagged {tag}: 0 (floats) or 1 (bytes) expected"
                ))),
                None => Err(E::custom("a compact f32 vector without its tag")),
            }
        }
    }

    /// The byte form: the exceptions, then a byte a value.
    fn with_exceptions<E: Error>(rest: &[u8]) -> Result<Vec<f32>, E> {
        let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        let Some((count, rest)) = rest.split_first_chunk::<4>() else {
            return Err(E::custom(
                "a compact f32 vector without its count of exceptions",
            ));
        };
        let count = word(count) as usize;
        let Some(listed) = count.checked_mul(8).filter(|&n| n <= rest.len()) else {
            return Err(E::custom(format!(
                "a compact f32 vector claims {count} exceptions in {} bytes",
                rest.len()
            )));
        };
        let (exceptions, values) = rest.split_at(listed);
        let mut out: Vec<f32> = values.iter().map(|&b| f32::from(b)).collect();
        let mut next = 0;
        for exception in exceptions.chunks_exact(8) {
            let i = word(&exception[..4]) as usize;
            if i < next || i >= out.len() || out[i] != 0.0 {
                return Err(E::custom(format!(
                    "a compact f32 vector's exception at {i} is out of order, past its {} values, or over a non-zero byte",
                    out.len()
                )));
            }
            out[i] = f32::from_le_bytes([exception[4], exception[5], exception[6], exception[7]]);
            next = i + 1;
        }
        Ok(out)
    }
}

/// `Vec<u16>` as its little-endian bytes.
pub mod u16s {
    use super::*;

    /// Writes `values` as one byte string.
    pub fn serialize<S: Serializer>(values: &[u16], serializer: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        serializer.serialize_bytes(&bytes)
    }

    /// Reads what [`serialize`] wrote; an odd length is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u16>, D::Error> {
        deserializer.deserialize_bytes(ShortsVisitor)
    }
}

struct ShortsVisitor;

impl Visitor<'_> for ShortsVisitor {
    type Value = Vec<u16>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a byte string of little-endian u16 values")
    }

    fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<u16>, E> {
        if !bytes.len().is_multiple_of(2) {
            return Err(E::custom(format!(
                "a packed u16 vector of {} bytes is not a whole number of values",
                bytes.len()
            )));
        }
        Ok(bytes
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect())
    }
}

/// `Vec<u8>` as a byte string rather than a sequence of `u8`s.
pub mod bytes {
    use super::*;

    /// Writes `values` as one byte string.
    pub fn serialize<S: Serializer>(values: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(values)
    }

    /// Reads what [`serialize`] wrote.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        deserializer.deserialize_bytes(BytesVisitor)
    }
}

/// `Vec<Vec<f32>>` as a sequence of [`f32s`] byte strings.
pub mod f32_vecs {
    use super::*;

    struct Packed<'a>(&'a [f32]);

    impl Serialize for Packed<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            f32s::serialize(self.0, serializer)
        }
    }

    struct Owned(Vec<f32>);

    impl<'de> serde::Deserialize<'de> for Owned {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            f32s::deserialize(deserializer).map(Owned)
        }
    }

    /// Writes every vector as one byte string.
    pub fn serialize<S: Serializer>(
        vectors: &[Vec<f32>],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(vectors.iter().map(|v| Packed(v)))
    }

    /// Reads what [`serialize`] wrote.
    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<Vec<f32>>, D::Error> {
        struct SeqVisitor;
        impl<'de> Visitor<'de> for SeqVisitor {
            type Value = Vec<Vec<f32>>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a sequence of packed f32 vectors")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                // The length is the peer's word: grow as elements arrive.
                let mut out = Vec::new();
                while let Some(Owned(v)) = seq.next_element()? {
                    out.push(v);
                }
                Ok(out)
            }
        }
        deserializer.deserialize_seq(SeqVisitor)
    }
}

struct FloatsVisitor;

impl Visitor<'_> for FloatsVisitor {
    type Value = Vec<f32>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a byte string of little-endian f32 values")
    }

    fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<f32>, E> {
        if !bytes.len().is_multiple_of(4) {
            return Err(E::custom(format!(
                "a packed f32 vector of {} bytes is not a whole number of floats",
                bytes.len()
            )));
        }
        Ok(bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }
}

struct BytesVisitor;

impl Visitor<'_> for BytesVisitor {
    type Value = Vec<u8>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a byte string")
    }

    fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<u8>, E> {
        Ok(bytes.to_vec())
    }

    fn visit_byte_buf<E: Error>(self, bytes: Vec<u8>) -> Result<Vec<u8>, E> {
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use std::pin::Pin;

    use serde::de::DeserializeOwned;
    use serde::{Deserialize, Serialize};
    use tarpc::tokio_serde::formats::Bincode;
    use tarpc::tokio_serde::{Deserializer, Serializer};
    use tarpc::tokio_util::bytes::BytesMut;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Columns {
        #[serde(with = "super::f32s")]
        floats: Vec<f32>,
        #[serde(with = "super::bytes")]
        small: Vec<u8>,
        #[serde(with = "super::u16s")]
        shorts: Vec<u16>,
        #[serde(with = "super::f32_vecs")]
        sets: Vec<Vec<f32>>,
    }

    /// `value` as the RPC transport encodes it.
    fn encode<T: Serialize + DeserializeOwned + Unpin>(value: &T) -> Vec<u8> {
        let mut codec = Bincode::<T, T>::default();
        Pin::new(&mut codec).serialize(value).unwrap().to_vec()
    }

    /// `bytes` as the RPC transport decodes them.
    fn decode<T: Serialize + DeserializeOwned + Unpin>(bytes: &[u8]) -> std::io::Result<T> {
        let mut codec = Bincode::<T, T>::default();
        Pin::new(&mut codec).deserialize(&BytesMut::from(bytes))
    }

    /// Every bit pattern comes back, including NaN payloads, signed zeros
    /// and infinities; the encoding is the length and the raw little-endian
    /// bytes, nothing per element.
    #[test]
    fn values_come_back_bit_for_bit_as_raw_little_endian_bytes() {
        let floats = vec![
            1.5,
            -0.0,
            f32::INFINITY,
            f32::from_bits(0x7fc0_1234),
            f32::MIN_POSITIVE / 2.0,
            f32::MAX,
        ];
        let value = Columns {
            floats: floats.clone(),
            small: vec![0, 7, 255],
            shorts: vec![1, 0x1234, u16::MAX],
            sets: vec![vec![], vec![2.0; 300]],
        };
        let encoded = encode(&value);
        // Length 24 then the bytes; 3 then the bytes; 6 then the shorts'
        // bytes; 2 sets of 0 and 1200 bytes (a variable-length 1200 is a
        // marker and two bytes).
        assert_eq!(encoded.len(), 1 + 24 + 1 + 3 + 1 + 6 + 1 + 1 + 3 + 1200);
        assert_eq!(&encoded[29..36], &[6, 1, 0, 0x34, 0x12, 0xff, 0xff]);
        let le: Vec<u8> = floats.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(&encoded[1..25], le.as_slice());
        let back = decode::<Columns>(&encoded).unwrap();
        assert_eq!(
            back.floats.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            floats.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(
            (back.small, back.shorts, back.sets),
            (value.small, value.shorts, value.sets)
        );
    }

    /// A byte string that is not a whole number of floats, or that claims
    /// more bytes than the message holds, is refused with an error.
    #[test]
    fn malformed_lengths_are_errors() {
        let mut encoded = encode(&Columns {
            floats: vec![1.0, 2.0],
            small: vec![],
            shorts: vec![],
            sets: vec![],
        });
        encoded[0] = 7;
        let err = decode::<Columns>(&encoded).unwrap_err();
        assert!(
            err.to_string().contains("7 bytes is not a whole number"),
            "{err}"
        );
        encoded[0] = 200;
        assert!(decode::<Columns>(&encoded).is_err());
        // A length of 2^40 bytes (marker 253, then eight bytes) in a short
        // message is an error, not an allocation of a terabyte.
        let mut huge = vec![253];
        huge.extend_from_slice(&(1u64 << 40).to_le_bytes());
        huge.extend_from_slice(&encoded[1..]);
        assert!(decode::<Columns>(&huge).is_err());
    }

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Compact(#[serde(with = "super::compact_f32s")] Vec<f32>);

    fn encode_compact(values: &[f32]) -> Vec<u8> {
        encode(&Compact(values.to_vec()))
    }

    fn decode_compact(bytes: &[u8]) -> std::io::Result<Vec<f32>> {
        decode::<Compact>(bytes).map(|c| c.0)
    }

    /// Whole numbers 0..=255 travel as a byte each, the few other values
    /// (a fraction, 256, a negative zero, a NaN) as exceptions with their
    /// index; mostly other values go as floats; all come back bit for bit.
    #[test]
    fn compact_floats_are_bytes_with_their_few_exceptions() {
        let bits = vec![0.0, 1.0, 1.0, 0.0, 255.0, 3.0];
        let encoded = encode_compact(&bits);
        // Length 11, the tag 1, no exceptions, a byte a value.
        assert_eq!(encoded, [11, 1, 0, 0, 0, 0, 0, 1, 1, 0, 255, 3]);
        assert_eq!(decode_compact(&encoded).unwrap(), bits);
        let bit_for_bit = |values: &[f32]| values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        for odd in [0.5, 256.0, -0.0, -1.0, f32::NAN] {
            let mut values = vec![0.0; 40];
            values[7] = 1.0;
            values[20] = odd;
            let encoded = encode_compact(&values);
            // Tag, count, one exception (index 20 and the value), 40 bytes.
            assert_eq!(encoded.len(), 1 + 1 + 4 + 8 + 40, "{odd}");
            assert_eq!(&encoded[2..10], &[1, 0, 0, 0, 20, 0, 0, 0], "{odd}");
            assert_eq!(
                bit_for_bit(&decode_compact(&encoded).unwrap()),
                bit_for_bit(&values)
            );
        }
        // Mostly fractions: floats, the tag 0.
        let fractions = vec![0.5, 0.25, 1.0];
        let encoded = encode_compact(&fractions);
        assert_eq!((encoded.len(), encoded[1]), (1 + 1 + 12, 0));
        assert_eq!(decode_compact(&encoded).unwrap(), fractions);
        assert!(decode_compact(&encode_compact(&[])).unwrap().is_empty());
    }

    /// An unknown tag, no tag, a short list of exceptions, exceptions out
    /// of order, past the values or over a byte that is not zero, and
    /// floats that are not whole are refused.
    #[test]
    fn malformed_compact_floats_are_errors() {
        let refused = |bytes: &[u8], said: &str| {
            let err = decode_compact(bytes).unwrap_err().to_string();
            assert!(err.contains(said), "{bytes:?}: {err}");
        };
        refused(&[3, 2, 0, 1], "tagged 2: 0 (floats) or 1 (bytes) expected");
        refused(&[0], "without its tag");
        refused(&[4, 0, 0, 0, 0], "not a whole number");
        refused(&[3, 1, 0, 0], "without its count of exceptions");
        refused(&[6, 1, 9, 0, 0, 0, 0], "claims 9 exceptions in 1 bytes");
        // Two values; an exception at 2, or at 0 over the byte 7, or two
        // at 1 then 0.
        let exception = |at: u8| [at, 0, 0, 0, 0, 0, 0, 0x3f];
        let mut past = vec![15, 1, 1, 0, 0, 0];
        past.extend(exception(2));
        past.extend([0, 0]);
        refused(&past, "past its 2 values");
        let mut over = vec![15, 1, 1, 0, 0, 0];
        over.extend(exception(0));
        over.extend([7, 0]);
        refused(&over, "over a non-zero byte");
        let mut backwards = vec![23, 1, 2, 0, 0, 0];
        backwards.extend(exception(1));
        backwards.extend(exception(0));
        backwards.extend([0, 0]);
        refused(&backwards, "out of order");
    }
}
