//! Datasets, CSV errors, splits and resumable batches.

use minnow_nn::{Batches, Dataset};
use std::io::{BufReader, Cursor};

fn digits() -> Dataset {
    let file = std::fs::File::open(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data/digits.csv.gz")).unwrap();
    let mut data = Dataset::from_csv(BufReader::new(flate2::read::GzDecoder::new(file)), 64, 10).unwrap();
    data.scale(1.0 / 16.0);
    data
}

fn csv(text: &str, width: usize, classes: usize) -> Result<Dataset, String> {
    Dataset::from_csv(Cursor::new(text.as_bytes()), width, classes).map_err(|e| e.to_string())
}

#[test]
fn the_digits_split_is_1437_and_360() {
    let data = digits();
    assert_eq!(data.len(), 1797);
    let (train, test) = data.split(|i| i % 5 == 0);
    assert_eq!((train.len(), test.len()), (1437, 360));
    assert!(data.features.iter().all(|&v| (0.0..=1.0).contains(&v)));
    assert_eq!(test.row(1), data.row(5));
}

#[test]
fn malformed_rows_name_the_line_and_column() {
    assert_eq!(
        csv("1,2,0\n1,2\n", 2, 3).unwrap_err(),
        "data: line 2: expected 3 columns (2 features and a label), found 2"
    );
    assert_eq!(csv("1,x,0\n", 2, 3).unwrap_err(), "data: line 1, column 2: 'x' is not a number");
    assert_eq!(csv("1,2,3\n", 2, 3).unwrap_err(), "data: line 1: label 3 is out of range for 3 classes");
    assert_eq!(csv("1,2,-1\n", 2, 3).unwrap_err(), "data: line 1, column 3: label '-1' is not a class index");
    assert_eq!(csv("1,inf,0\n", 2, 3).unwrap_err(), "data: line 1, column 2: 'inf' is not finite");
    assert_eq!(csv("\n1, 2 ,2\n\n", 2, 3).unwrap().labels, vec![2]);
}

#[test]
fn batches_cover_each_epoch_and_resume_exactly() {
    let data = csv(&(0..10).map(|i| format!("{i},{}\n", i % 2)).collect::<String>(), 1, 2).unwrap();
    let mut batches = Batches::new(data.len(), 3, 7).unwrap();
    let (mut x, mut y) = (vec![0.0; 3], vec![0u32; 3]);
    let mut seen = Vec::new();
    for _ in 0..batches.per_epoch() {
        batches.next_into(&data, &mut x, &mut y);
        seen.extend_from_slice(&x);
    }
    seen.sort_by(f32::total_cmp);
    seen.dedup();
    assert_eq!(seen.len(), 9, "an epoch visits distinct rows");

    let saved = batches.to_json();
    let mut resumed = Batches::from_json(&saved, 10, 3).unwrap();
    for _ in 0..7 {
        let (mut x2, mut y2) = (vec![0.0; 3], vec![0u32; 3]);
        batches.next_into(&data, &mut x, &mut y);
        resumed.next_into(&data, &mut x2, &mut y2);
        assert_eq!((&x, &y), (&x2, &y2));
    }
    assert!(batches.epoch() >= 2);
    assert!(Batches::new(5, 6, 0).is_err());
    assert!(Batches::from_json("{", 10, 3).is_err());
    // Saved state that does not fit the data is refused, naming the problem.
    let err = |text: &str, len, batch| Batches::from_json(text, len, batch).unwrap_err().to_string();
    assert!(err(&saved, 10, 4).contains("batch size 3, expected 4"));
    assert!(err(&saved, 11, 3).contains("an order of 10 rows, expected 11"));
    let order = |o: &str| saved.replacen(&saved[saved.find('[').unwrap()..=saved.find(']').unwrap()], o, 1);
    assert!(err(&order("[]"), 10, 3).contains("an order of 0 rows"));
    assert!(err(&order("[0,1,2,3,4,5,6,7,8,99]"), 10, 3).contains("row 99"));
    assert!(err(&order("[0,1,2,3,4,5,6,7,8,8]"), 10, 3).contains("row 8"));
    let at = saved.find("\"position\":").unwrap() + "\"position\":".len();
    let end = at + saved[at..].find(|c: char| !c.is_ascii_digit()).unwrap();
    let far = format!("{}1000000{}", &saved[..at], &saved[end..]);
    assert!(err(&far, 10, 3).contains("position 1000000 past the 10 rows"), "{}", err(&far, 10, 3));
    // A field it does not know is refused too.
    let extra = saved.replace("\"position\":", "\"_\":1,\"position\":");
    assert!(err(&extra, 10, 3).contains("unknown field `_`"), "{}", err(&extra, 10, 3));
}
