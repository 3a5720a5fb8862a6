"""The arena's protocol packages (generated from proto/chaodipi/)."""
