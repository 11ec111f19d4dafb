package io.etcdwright.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** Terraform's rule: only the word "yes" confirms; no terminal means no. */
final class Confirmation {
    private Confirmation() {
    }

    static boolean ask(String question, PrintWriter out) {
        out.print(question + " Only 'yes' will be accepted: ");
        out.flush();
        try {
            String answer = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            return answer != null && answer.strip().equals("yes");
        } catch (IOException e) {
            return false;
        }
    }
}
