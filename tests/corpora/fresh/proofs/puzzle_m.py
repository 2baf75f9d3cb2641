"""Correct orderings of the puzzle_m proof (steps that do not depend on each other may swap)."""
RIGHT = {
    "stationarity stated first": {"puzzle_m": ["A", "C", "F", "J", "H", "D", "G"]},
    "geometric series first, as a lemma": {"puzzle_m": ["H", "C", "F", "A", "J", "D", "G"]},
    "lower case, series before the replacement": {"puzzle_m": ["c", "f", "a", "h", "j", "d", "g"]},
    "a tuple with spaces": {"puzzle_m": (" C", "A ", "F", "J", "H", "D", "G")},
}
RIGHT["series between C and F"] = {"puzzle_m": ["C", "H", "F", "A", "J", "D", "G"]}
RIGHT["stationarity, series, then the unrolled form"] = {"puzzle_m": ["A", "H", "C", "F", "J", "D", "G"]}
