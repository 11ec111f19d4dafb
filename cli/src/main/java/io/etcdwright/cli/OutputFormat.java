package io.etcdwright.cli;

/** Every command that reports offers the same two formats. */
enum OutputFormat { text, json }
