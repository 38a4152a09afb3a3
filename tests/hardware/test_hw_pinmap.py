import pytest

from hardware.errors import PinMapError
from hardware.pinmap import BCM_BY_HEADER, HEADER_PIN, RESERVED_BY_DEFAULT, PinMap


def test_defaults_are_valid_and_avoid_i2c_spi_and_hat_id_pins():
    pm = PinMap()
    pins = [pin for _, pin in pm.assignments()]
    assert len(pins) == len(set(pins))
    assert not set(pins) & RESERVED_BY_DEFAULT
    assert not set(pins) & {2, 3, 7, 8, 9, 10, 11}
    assert pm.reserved_pins_used() == ()
    assert pm.new_game is None  # long press on both confirm buttons instead


def test_header_table_is_a_bijection_of_the_28_gpio_pins():
    assert sorted(HEADER_PIN) == list(range(28))
    assert all(BCM_BY_HEADER[HEADER_PIN[b]] == b for b in HEADER_PIN)
    assert HEADER_PIN[17] == 11 and HEADER_PIN[21] == 40 and HEADER_PIN[2] == 3


def test_from_mapping_overrides_and_accepts_pin_spellings():
    pm = PinMap.from_mapping({"hint": "GPIO2", "control": "BCM3", "undo": "BOARD7", "new_game": 9,
                              "gauge": [12, 13, "14"]})
    assert (pm.hint, pm.control, pm.undo, pm.new_game) == (2, 3, 4, 9)
    assert pm.gauge == (12, 13, 14)
    assert pm.confirm_white == PinMap().confirm_white
    assert [k for k, _, _ in pm.reserved_pins_used()] == ["hint", "control", "new_game"]


def test_from_mapping_numbered_gauge_keys_for_integer_only_config_tables():
    pm = PinMap.from_mapping({"gauge_1": 12, "gauge_2": 13, "gauge_3": 4})
    assert pm.gauge == (12, 13, 4)
    with pytest.raises(PinMapError, match="gauge_2"):
        PinMap.from_mapping({"gauge_1": 12, "gauge_3": 4})
    with pytest.raises(PinMapError, match="not both"):
        PinMap.from_mapping({"gauge": [12], "gauge_1": 13})


def test_new_game_can_be_switched_off():
    assert PinMap.from_mapping({"new_game": "none"}).new_game is None
    assert PinMap.from_mapping({"new_game": None}).new_game is None


def test_round_trip():
    pm = PinMap(new_game=9)
    assert PinMap.from_mapping(pm.to_mapping()) == pm


@pytest.mark.parametrize("mapping, words", [
    ({"hint": 17}, ["'hint'", "GPIO17", "used twice", "'sr_data'"]),
    ({"gauge": [4, 4]}, ["gauge_2", "GPIO4", "used twice", "gauge_1"]),
    ({"gauge_1": 4, "gauge_2": 17}, ["gauge_2", "GPIO17", "used twice", "'sr_data'"]),
    ({"hint": 28}, ["'hint'", "GPIO28", "does not exist"]),
    ({"hint": -1}, ["'hint'", "GPIO-1", "does not exist"]),
    ({"hint": "BOARD1"}, ["'hint'", "header pin 1", "not a GPIO"]),
    ({"hint": "BOARD41"}, ["'hint'", "header pin 41"]),
    ({"hint": "seventeen"}, ["'hint'", "'seventeen'", "not a pin"]),
    ({"hint": True}, ["'hint'", "True", "not a pin"]),
    ({"hint": 1.5}, ["'hint'", "1.5"]),
    ({"hnit": 4}, ["unknown key 'hnit'", "hint"]),
    ({"gauge": 4}, ["'gauge'", "list"]),
    ({"gauge": []}, ["'gauge'", "1 to 10"]),
])
def test_bad_pin_maps_are_refused_with_the_key_and_pin_named(mapping, words):
    with pytest.raises(PinMapError) as info:
        PinMap.from_mapping(mapping)
    for word in words:
        assert word in str(info.value)


def test_direct_construction_is_validated_too():
    with pytest.raises(PinMapError, match="used twice"):
        PinMap(turn_white=6)
    with pytest.raises(PinMapError, match="not a mapping|table"):
        PinMap.from_mapping([("hint", 4)])
