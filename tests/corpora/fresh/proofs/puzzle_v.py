"""Correct orderings of the puzzle_v proof."""
RIGHT = {
    "stationarity of g^2 first": {"puzzle_v": ["B", "E", "G", "L", "J", "C", "I"]},
    "geometric series first": {"puzzle_v": ["J", "E", "G", "B", "L", "C", "I"]},
    "lower case, series before the replacement": {"puzzle_v": ["e", "g", "b", "j", "l", "c", "i"]},
    "a tuple": {"puzzle_v": ("E", "B", "G", "L", "J", "C", "I")},
}
RIGHT["series between E and G"] = {"puzzle_v": ["E", "J", "G", "B", "L", "C", "I"]}
RIGHT["stationarity and series first"] = {"puzzle_v": ["B", "J", "E", "G", "L", "C", "I"]}
