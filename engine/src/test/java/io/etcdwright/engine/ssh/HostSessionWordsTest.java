package io.etcdwright.engine.ssh;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.SocketException;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A dropped connection is reported in the failure's words, never with the Java types the libraries put before them. */
class HostSessionWordsTest {

    @Test
    void javaClassNamesAreLeftOutOfTheReason() {
        // jsch reports a write to a dead socket as its cause's toString().
        assertEquals("broken pipe", HostSession.inOperatorWords(new IOException("java.net.SocketException: Broken pipe")));
        assertEquals("connection reset", HostSession.inOperatorWords(
                new IOException("com.jcraft.jsch.JSchException: java.net.SocketException: Connection reset")));
        assertEquals("the connection closed before the command ended: sh script: set -eu", HostSession.inOperatorWords(
                new IOException("the connection closed before the command ended: sh script: set -eu")));
    }

    @Test
    void aFailureWithoutWordsOfItsOwnTakesItsCausesOrSaysSo() {
        assertEquals("broken pipe", HostSession.inOperatorWords(new IOException(null, new SocketException("Broken pipe"))));
        assertEquals("no reason given", HostSession.inOperatorWords(new IOException((String) null)));
        assertEquals("no reason given", HostSession.inOperatorWords(new IOException("java.io.EOFException")));
    }
}
