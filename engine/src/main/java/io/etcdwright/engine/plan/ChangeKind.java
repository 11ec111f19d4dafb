package io.etcdwright.engine.plan;

/** What a step does to the world, with Terraform's symbols so plans read familiarly. */
public enum ChangeKind {
    CREATE("+"), UPDATE("~"), DELETE("-"), ACTION(">");

    private final String symbol;

    ChangeKind(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }
}
