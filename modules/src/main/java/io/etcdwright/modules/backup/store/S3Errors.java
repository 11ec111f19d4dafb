package io.etcdwright.modules.backup.store;

import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;

import java.io.IOException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.nio.file.NoSuchFileException;

/**
 * What an S3 failure means for the operator: what failed, where, what to do. Server messages
 * are cut to their first line: some servers echo the whole canonical request on a signature
 * mismatch, which is noise at 3 a.m.; no credential is ever part of the message.
 */
final class S3Errors {
    private S3Errors() {
    }

    static IOException explain(String what, String key, S3Settings settings, SdkException e) {
        String where = settings.describe();
        if (e instanceof NoSuchKeyException) {
            return new NoSuchFileException(where + key, null, what + ": no such object");
        }
        if (e instanceof NoSuchBucketException || (e instanceof S3Exception s && "NoSuchBucket".equals(code(s)))) {
            return new IOException("the bucket '" + settings.bucket() + "' does not exist"
                    + settings.endpoint().map(u -> " at " + u).orElse(" in " + settings.region().orElse("the SDK's region"))
                    + " (" + what + "); create it (aws s3 mb s3://" + settings.bucket()
                    + settings.region().map(r -> " --region " + r).orElse("")
                    + settings.endpoint().map(u -> " --endpoint-url " + u).orElse("")
                    + ") or correct the bucket name in the spec", e);
        }
        if (e instanceof S3Exception s && s.statusCode() == 403) {
            return new IOException("the store refused the credentials (" + code(s) + ": " + firstLine(s) + ") for "
                    + what + " at " + where + "; check AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or AWS_PROFILE,"
                    + " and that they may read and write this bucket", e);
        }
        if (e instanceof S3Exception s) {
            return new IOException(what + " at " + where + " failed: HTTP " + s.statusCode() + " " + code(s) + ": " + firstLine(s), e);
        }
        if (e instanceof SdkClientException) {
            Throwable root = rootCause(e);
            if (root instanceof ConnectException || root instanceof HttpConnectTimeoutException) {
                return new IOException("cannot connect to the S3 endpoint "
                        + settings.endpoint().map(Object::toString).orElse("of region " + settings.region().orElse("(SDK default)"))
                        + " (" + root.getMessage() + ") for " + what + "; is the server running and the endpoint right?", e);
            }
            if (root instanceof UnknownHostException) {
                return new IOException("cannot resolve the S3 endpoint's host (" + root.getMessage() + ") for " + what
                        + " at " + where + "; check the endpoint and DNS", e);
            }
            String m = String.valueOf(e.getMessage());
            if (m.contains("Unable to load credentials")) {
                return new IOException("no S3 credentials found for " + where + ": set AWS_ACCESS_KEY_ID and"
                        + " AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, in etcdwright's environment (never in the spec)", e);
            }
            if (m.contains("Unable to load region")) {
                return new IOException("no AWS region for " + where + ": set the store's region in the spec or AWS_REGION", e);
            }
        }
        return new IOException(what + " at " + where + " failed: " + e.getMessage(), e);
    }

    private static String code(S3Exception e) {
        return e.awsErrorDetails() == null ? "HTTP " + e.statusCode() : e.awsErrorDetails().errorCode();
    }

    private static String firstLine(S3Exception e) {
        String m = e.awsErrorDetails() == null ? e.getMessage() : e.awsErrorDetails().errorMessage();
        if (m == null) {
            return "no message";
        }
        m = m.strip().lines().findFirst().orElse("");
        return m.length() > 200 ? m.substring(0, 200) + "…" : m;
    }

    private static Throwable rootCause(Throwable t) {
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }
}
