package io.etcdwright.engine.inventory;

import io.etcdwright.engine.source.JsonValues;
import io.etcdwright.engine.source.Location;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One inventory host with its variables merged as Ansible merges them
 * (all &lt; parent group &lt; child group &lt; host).
 *
 * @param name           the inventory host name
 * @param address        where SSH connects: {@code ansible_host}, or the name
 * @param port           SSH port: {@code ansible_port}, or 22
 * @param user           SSH user: {@code ansible_user}, or root
 * @param privateKeyFile {@code ansible_ssh_private_key_file}, relative to the inventory file, ~ expanded
 * @param become         {@code ansible_become}: run commands through sudo
 * @param vars           every variable of the host after merging, in precedence order
 * @param location       where the host is first listed
 * @param portSetAt      where the {@code ansible_port} that wins is written; empty when the port is 22 by default
 */
public record InventoryHost(String name, String address, int port, String user, Optional<Path> privateKeyFile,
                            boolean become, Map<String, Object> vars, Location location, Optional<SetAt> portSetAt) {

    /** Where a variable is written: the place a problem with its value points at. */
    public record SetAt(Location location, String field) {
        public SetAt {
            Objects.requireNonNull(location, "location");
            Objects.requireNonNull(field, "field");
        }
    }

    public static final int DEFAULT_SSH_PORT = 22;
    public static final String DEFAULT_USER = "root";

    public InventoryHost {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(address, "address");
        Objects.requireNonNull(user, "user");
        Objects.requireNonNull(privateKeyFile, "privateKeyFile");
        Objects.requireNonNull(location, "location");
        Objects.requireNonNull(portSetAt, "portSetAt");
        vars = JsonValues.orderedCopy(vars);
    }

    /** A host whose SSH port is not traced to where it is written (a host made in code, not read). */
    public InventoryHost(String name, String address, int port, String user, Optional<Path> privateKeyFile,
                         boolean become, Map<String, Object> vars, Location location) {
        this(name, address, port, user, privateKeyFile, become, vars, location, Optional.empty());
    }

    /** The address etcd advertises and listens on: {@code etcd_address}, or the SSH address. */
    public String etcdAddress() {
        return vars.get("etcd_address") instanceof String etcdAddress ? etcdAddress : address;
    }

    /** The etcd member name: {@code etcd_member_name}, or the inventory host name. */
    public String memberName() {
        return vars.get("etcd_member_name") instanceof String memberName ? memberName : name;
    }
}
