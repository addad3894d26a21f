{
  "targets": [
    {
      "target_name": "ptymodes",
      "sources": ["ptymodes.c"],
      "cflags": ["-O2", "-Wall"]
    }
  ]
}
