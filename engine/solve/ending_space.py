"""The positions of a chess ending with few pieces, numbered for retrograde analysis, with their moves and un-moves.

A *material* names each side's pieces, White's first, strongest first after the king: "KQKR" is king and queen
against king and rook. A table is built with the stronger side as White (``oriented``); a position with the colours
the other way round is read from it turned over (colours swapped, the board mirrored top to bottom). Squares are 0
(a1) to 63 (h8), ``rank * 8 + file``.

A position's pieces sit in *slots*: White's king, Black's king, then the other pieces in the material's order.
Its index is ``((king_code * 64 + square_1) * 64 + square_2 ...) * 2 + side_to_move`` (White 0), where the
White king's square is reduced by symmetry: without pawns all eight symmetries of the board apply, the White king
stands on one of the ten squares of the triangle a1-d1-d4 (``king_code`` its place in ``TRIANGLE``) and, on the
diagonal a1-d4, the smaller index of the two mirror images is the position's; with pawns only the mirror a-h
applies, the White king on files a-d (``king_code`` its place among those 32 squares). Indices of impossible or
non-canonical placements are not positions.

Castling is never allowed and en passant never matters (at most one pawn a table); the 50-move rule is not
counted (distance to mate, as Nalimov's and Thompson's tables). Compiled with the engine's hot modules
(docs/compiled.md).
"""

from __future__ import annotations

from typing import Final

PAWN: Final = 1
KNIGHT: Final = 2
BISHOP: Final = 3
ROOK: Final = 4
QUEEN: Final = 5
KING: Final = 6
LETTERS: Final = ".PNBRQK"
"""A piece type's letter: ``LETTERS[type]``."""
WHITE: Final = 0
BLACK: Final = 1
NO_SQUARE: Final = -1
"""The square of a piece captured by the move being tried."""

ORTHOGONAL_STEPS: Final[tuple[tuple[int, int], ...]] = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAGONAL_STEPS: Final[tuple[tuple[int, int], ...]] = ((1, 1), (1, -1), (-1, 1), (-1, -1))
KNIGHT_STEPS: Final[tuple[tuple[int, int], ...]] = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1),
                                                    (-1, 2))


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


def _targets(steps: tuple[tuple[int, int], ...]) -> list[list[int]]:
    table = []
    for square in range(64):
        file, rank = square & 7, square >> 3
        table.append([(rank + dr) * 8 + file + df for df, dr in steps if _on_board(file + df, rank + dr)])
    return table


def _rays(steps: tuple[tuple[int, int], ...]) -> list[list[list[int]]]:
    """For each square, each direction's squares outward to the edge."""
    table = []
    for square in range(64):
        file, rank = square & 7, square >> 3
        rays = []
        for df, dr in steps:
            ray = []
            f, r = file + df, rank + dr
            while _on_board(f, r):
                ray.append(r * 8 + f)
                f, r = f + df, r + dr
            rays.append(ray)
        table.append(rays)
    return table


KING_TARGETS: Final = _targets(ORTHOGONAL_STEPS + DIAGONAL_STEPS)
KNIGHT_TARGETS: Final = _targets(KNIGHT_STEPS)
ROOK_RAYS: Final = _rays(ORTHOGONAL_STEPS)
BISHOP_RAYS: Final = _rays(DIAGONAL_STEPS)
QUEEN_RAYS: Final = _rays(ORTHOGONAL_STEPS + DIAGONAL_STEPS)


def _lines() -> tuple[list[int], list[list[int]]]:
    """For each pair of squares ``from * 64 + to``: how they line up (0 not, ``ROOK`` on a rank or file, ``BISHOP``
    on a diagonal) and the squares strictly between them."""
    alignment = [0] * 4096
    between: list[list[int]] = [[] for _ in range(4096)]
    for kind, rays in ((ROOK, _rays(ORTHOGONAL_STEPS)), (BISHOP, _rays(DIAGONAL_STEPS))):
        for square in range(64):
            for ray in rays[square]:
                for distance, target in enumerate(ray):
                    alignment[square * 64 + target] = kind
                    between[square * 64 + target] = ray[:distance]
    return alignment, between


ALIGNMENT, BETWEEN = _lines()


def _symmetries() -> list[list[int]]:
    """The eight symmetries of the board, each as the image of every square (the identity first)."""
    images = []
    for flip_file in (False, True):
        for flip_rank in (False, True):
            for swap in (False, True):
                image = []
                for square in range(64):
                    file, rank = square & 7, square >> 3
                    if flip_file:
                        file = 7 - file
                    if flip_rank:
                        rank = 7 - rank
                    if swap:
                        file, rank = rank, file
                    image.append(rank * 8 + file)
                images.append(image)
    return images


SYMMETRIES: Final = _symmetries()
TRIANGLE: Final[tuple[int, ...]] = (0, 1, 2, 3, 9, 10, 11, 18, 19, 27)
"""a1 b1 c1 d1 b2 c2 d2 c3 d3 d4: where the White king of a table without pawns stands."""
TRIANGLE_CODE: Final = [TRIANGLE.index(square) if square in TRIANGLE else -1 for square in range(64)]
TO_TRIANGLE: Final = [[k for k in range(8) if SYMMETRIES[k][square] in TRIANGLE] for square in range(64)]
"""The symmetries taking each square into the triangle: one, or two for a square of the diagonal a1-h8 and a8-h1."""
HALF_CODE: Final = [(square >> 3) * 4 + (square & 7) if square & 7 < 4 else -1 for square in range(64)]
HALF_SQUARES: Final = [square for square in range(64) if square & 7 < 4]


def piece_types(material: str) -> tuple[list[int], list[int]]:
    """The slots' piece types and colours of ``material`` ("KQKR"): kings first, then White's pieces, then
    Black's. ``ValueError`` for a material that is not one king each with other pieces strongest first, or with
    two pieces of one kind and colour."""
    if material.count("K") != 2 or not material.startswith("K") or len(material) < 2:
        raise ValueError(f"not a material: {material!r}")
    split = material.index("K", 1)
    sides = (material[1:split], material[split + 1:])
    types = [KING, KING]
    colours = [WHITE, BLACK]
    for colour, pieces in enumerate(sides):
        kinds = [LETTERS.find(letter) for letter in pieces]
        if any(kind < PAWN or kind == KING for kind in kinds) or kinds != sorted(kinds, reverse=True) or len(
                set(kinds)) != len(kinds):
            raise ValueError(f"not a material: {material!r}")
        types.extend(kinds)
        colours.extend([colour] * len(kinds))
    return types, colours


def material_name(types: list[int], colours: list[int], squares: list[int]) -> str:
    """The material of the pieces still on the board (a square other than ``NO_SQUARE``), as written: "KRKP"."""
    sides = ["", ""]
    for kind, colour, square in zip(types, colours, squares, strict=True):
        if square != NO_SQUARE and kind != KING:
            sides[colour] += LETTERS[kind]
    return "K" + "".join(sorted(sides[0], key=LETTERS.find, reverse=True)) + "K" + "".join(
        sorted(sides[1], key=LETTERS.find, reverse=True))


def strength(pieces: str) -> tuple[int, ...]:
    """How one side's pieces (without the king) compare: more of the stronger pieces first."""
    return (*tuple(sorted((LETTERS.find(letter) for letter in pieces), reverse=True)), 0)


def oriented(material: str) -> tuple[str, bool]:
    """The material of the table holding ``material``'s positions, and whether they are read turned over (the
    stronger side, by ``strength``, is White in every table; equal sides stay as they are)."""
    split = material.index("K", 1)
    white, black = material[1:split], material[split + 1:]
    if strength(black) > strength(white):
        return f"K{black}K{white}", True
    return material, False


DRAWN_MATERIALS: Final = frozenset({"KK", "KBK", "KNK"})
"""Materials where no mate is possible: every position is a draw, no table needed."""


class EndingSpace:
    """The numbered positions of one material (see the module docstring)."""

    def __init__(self, material: str) -> None:
        self.material = material
        self.types, self.colours = piece_types(material)
        self.count = len(self.types)
        self.pawns = PAWN in self.types
        self.king_squares = HALF_SQUARES if self.pawns else list(TRIANGLE)
        self.size = len(self.king_squares) * 64 ** (self.count - 1) * 2

    def index_of(self, squares: list[int], side: int) -> int:
        """The index of the position with pieces on ``squares`` (slot order) and ``side`` to move."""
        king = squares[0]
        if self.pawns:
            flip = 7 if king & 7 >= 4 else 0
            index = HALF_CODE[king ^ flip]
            for slot in range(1, self.count):
                index = index * 64 + (squares[slot] ^ flip)
            return index * 2 + side
        best = -1
        for symmetry in TO_TRIANGLE[king]:
            image = SYMMETRIES[symmetry]
            index = TRIANGLE_CODE[image[king]]
            for slot in range(1, self.count):
                index = index * 64 + image[squares[slot]]
            if best < 0 or index < best:
                best = index
        return best * 2 + side

    def squares_of(self, index: int) -> list[int]:
        """The squares (slot order) of the placement numbered ``index`` (whichever side is to move)."""
        rest = index >> 1
        squares = [0] * self.count
        for slot in range(self.count - 1, 0, -1):
            squares[slot] = rest & 63
            rest >>= 6
        squares[0] = self.king_squares[rest]
        return squares

    def is_position(self, squares: list[int], side: int, index: int) -> bool:
        """Whether ``index`` (of ``squares`` and ``side``) is a position: every piece on its own square, no pawn on
        the first or last rank, the kings apart, the side not to move not in check, and the canonical index of
        its placement."""
        for slot in range(self.count):
            square = squares[slot]
            if self.types[slot] == PAWN and (square < 8 or square >= 56):
                return False
            for other in range(slot):
                if squares[other] == square:
                    return False
        if squares[1] in KING_TARGETS[squares[0]]:
            return False
        if self.attacked(squares[1 - side], side, squares):
            return False
        return self.pawns or self.index_of(squares, side) == index

    def attacked(self, target: int, by: int, squares: list[int]) -> bool:
        """Whether a piece of colour ``by`` (not captured) attacks square ``target``."""
        for slot in range(self.count):
            square = squares[slot]
            if self.colours[slot] == by and square != NO_SQUARE and self.attacks(slot, square, target, squares):
                return True
        return False

    def attacks(self, slot: int, square: int, target: int, squares: list[int]) -> bool:
        """Whether the piece of ``slot`` standing on ``square`` attacks ``target``."""
        kind = self.types[slot]
        if kind == KING:
            return target in KING_TARGETS[square]
        if kind == KNIGHT:
            return target in KNIGHT_TARGETS[square]
        if kind == PAWN:
            file = square & 7
            ahead = square + 8 if self.colours[slot] == WHITE else square - 8
            return (file > 0 and target == ahead - 1) or (file < 7 and target == ahead + 1)
        line = ALIGNMENT[square * 64 + target]
        if line == 0 or (kind != QUEEN and kind != line):
            return False
        return all(step not in squares for step in BETWEEN[square * 64 + target])

    def destinations(self, slot: int, squares: list[int]) -> list[int]:
        """The squares the piece of ``slot`` can move to, its own side's pieces aside (captures included; a pawn's
        pushes and captures), before the check of its own king."""
        kind, colour, square = self.types[slot], self.colours[slot], squares[slot]
        found: list[int] = []
        if kind in (KING, KNIGHT):
            for target in KING_TARGETS[square] if kind == KING else KNIGHT_TARGETS[square]:
                if not self._own(target, colour, squares):
                    found.append(target)
            return found
        if kind == PAWN:
            step = 8 if colour == WHITE else -8
            ahead = square + step
            if ahead not in squares:
                found.append(ahead)
                start = square >> 3 == (1 if colour == WHITE else 6)
                if start and ahead + step not in squares:
                    found.append(ahead + step)
            file = square & 7
            for target in ((ahead - 1) if file > 0 else -1, (ahead + 1) if file < 7 else -1):
                if target >= 0 and self._theirs(target, colour, squares):
                    found.append(target)
            return found
        rays = QUEEN_RAYS[square] if kind == QUEEN else ROOK_RAYS[square] if kind == ROOK else BISHOP_RAYS[square]
        for ray in rays:
            for target in ray:
                if target in squares:
                    if not self._own(target, colour, squares):
                        found.append(target)
                    break
                found.append(target)
        return found

    def origins(self, slot: int, squares: list[int]) -> list[int]:
        """The empty squares the piece of ``slot`` can have come from by a move that captured nothing (a pawn: one
        step back, or two from its fourth rank)."""
        kind, colour, square = self.types[slot], self.colours[slot], squares[slot]
        found: list[int] = []
        if kind in (KING, KNIGHT):
            for origin in KING_TARGETS[square] if kind == KING else KNIGHT_TARGETS[square]:
                if origin not in squares:
                    found.append(origin)
            return found
        if kind == PAWN:
            back = -8 if colour == WHITE else 8
            behind = square + back
            if behind not in squares and 8 <= behind < 56:
                found.append(behind)
                fourth = square >> 3 == (3 if colour == WHITE else 4)
                if fourth and behind + back not in squares:
                    found.append(behind + back)
            return found
        rays = QUEEN_RAYS[square] if kind == QUEEN else ROOK_RAYS[square] if kind == ROOK else BISHOP_RAYS[square]
        for ray in rays:
            for origin in ray:
                if origin in squares:
                    break
                found.append(origin)
        return found

    def _own(self, target: int, colour: int, squares: list[int]) -> bool:
        return any(squares[slot] == target and self.colours[slot] == colour for slot in range(self.count))

    def _theirs(self, target: int, colour: int, squares: list[int]) -> bool:
        return any(squares[slot] == target and self.colours[slot] != colour for slot in range(self.count))

    def captured_on(self, target: int, squares: list[int]) -> int:
        """The slot of the piece standing on ``target``, or -1."""
        for slot in range(self.count):
            if squares[slot] == target:
                return slot
        return -1
